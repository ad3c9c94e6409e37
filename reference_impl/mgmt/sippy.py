"""Migration (sippy) endpoints: PUT / GET / DELETE .../r2/buckets/{bucket}/sippy and validate.

The configuration is stored with the bucket (bucket_configs kind `sippy`); the S3 GetObject
miss hook (reference_impl/services/migration/hook.py) reads it. Shapes are dated by the profile
(`sippy_shape`, 2024-02-06), see reference_impl/mgmt/sippy_config.py.
"""

from __future__ import annotations

from typing import Any

from reference_impl.mgmt import sippy_config as config
from reference_impl.mgmt.r2_buckets import R2Buckets
from reference_impl.services import audit
from reference_impl.services.migration import source
from reference_impl.wire.mgmt.envelope import ApiError


class Sippy:
    def __init__(self, buckets: R2Buckets) -> None:
        self.buckets = buckets
        self.ctx = buckets.ctx
        self.profile = buckets.ctx.profile

    def _bucket(self, p: dict[str, str]) -> tuple[str, str]:
        account = self.buckets.account(p)
        found = self.buckets.require(account, p["bucket"])
        if not hasattr(found, "name"):  # a deviating answer (sensitivity tests)
            raise ApiError("bucket_not_found", p["bucket"])
        return account, p["bucket"]

    async def get(self, p: dict[str, str], body: Any) -> Any:
        account, name = self._bucket(p)
        stored = self.ctx.store.get_bucket_config(account, name, source.SIPPY_KIND)
        if self.profile.deviations.sippy_get_unset:
            stored = None
        return config.render(self.profile, stored, account, name)

    async def put(self, p: dict[str, str], body: Any) -> Any:
        account, name = self._bucket(p)
        stored = config.parse(self.profile, body)
        self.ctx.store.put_bucket_config(account, name, source.SIPPY_KIND, stored)
        change = config.render(self.profile, stored, account, name)
        audit.record(self.ctx, account, name, "PutBucketMigration", change, self.buckets._actor())
        return change

    async def delete(self, p: dict[str, str], body: Any) -> Any:
        account, name = self._bucket(p)
        if not self.profile.deviations.sippy_delete_keeps:
            self.ctx.store.delete_bucket_config(account, name, source.SIPPY_KIND)
        audit.record(self.ctx, account, name, "DeleteBucketMigration", None,
                     self.buckets._actor())  # fmt: skip
        return {"enabled": False}

    async def validate(self, p: dict[str, str], body: Any) -> Any:
        if not self.profile.sippy_validate:
            raise ApiError("route_not_found", "sippy/validate is not offered at this date")
        account, name = self._bucket(p)
        if body is None:
            stored = self.ctx.store.get_bucket_config(account, name, source.SIPPY_KIND)
            if not stored:
                raise ApiError("sippy_invalid", "no body and no stored configuration", "/")
        else:
            stored = config.parse(self.profile, body)
        if not self.profile.deviations.sippy_validate_accepts_all:
            problem = await source.validate(stored)
            if problem is not None:
                raise ApiError("sippy_validation_failed", problem)
        return {"valid": True}
