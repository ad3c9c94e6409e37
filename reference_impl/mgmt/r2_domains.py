"""Custom domains of R2 buckets on the management API: how a bucket is made public.

    POST   /accounts/{account_id}/r2/buckets/{bucket}/domains/custom
           {domain, enabled, zoneId?, minTLS?} (or zone_id, min_tls)
    GET    /accounts/{account_id}/r2/buckets/{bucket}/domains/custom   -> {domains: [...]}
    GET    /accounts/{account_id}/r2/buckets/{bucket}/domains/custom/{domain}
    PUT    /accounts/{account_id}/r2/buckets/{bucket}/domains/custom/{domain}
           {enabled?, minTLS?} (or min_tls)
    DELETE /accounts/{account_id}/r2/buckets/{bucket}/domains/custom/{domain} -> {domain}

The spec names public access on custom domains but shows no API; the shape follows the
provider's public API (docs/architecture.md "Custom domains"). Records live in the registry the
public entrypoint reads (`reference_impl/services/domains.py`); every change is audited.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.services import audit
from reference_impl.services.domains import MIN_TLS_VALUES, registry, valid_domain
from reference_impl.storage import clock
from reference_impl.wire.mgmt.envelope import ApiError

SSL_STATUS = {"ownership": "active", "ssl": "active"}


class R2Domains:
    """Handlers `(path params, body) -> result`, routed by the management app."""

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.domains = registry(ctx)

    def _bucket(self, params: dict[str, str]) -> tuple[str, str]:
        account, bucket = params["account"], params["bucket"]
        if account != self.ctx.identity.account_id:
            raise ApiError("account_forbidden", account)
        if self.ctx.store.get_bucket(account, bucket) is None:
            raise ApiError("bucket_not_found", bucket)
        return account, bucket

    def _owned(self, params: dict[str, str]) -> tuple[str, str, dict[str, Any]]:
        account, bucket = self._bucket(params)
        record = self.domains.get(params["domain"].lower())
        if record is None or record["account"] != account or record["bucket"] != bucket:
            raise ApiError("domain_not_found", params["domain"])
        return account, bucket, record

    @staticmethod
    def _settings(body: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
        enabled = body.get("enabled", record.get("enabled"))
        if not isinstance(enabled, bool):
            raise ApiError("domain_invalid", "enabled must be a boolean", "/enabled")
        name = "minTLS" if "minTLS" in body else "min_tls"  # the provider's name first
        min_tls = body.get(name, record.get("min_tls"))
        if min_tls not in MIN_TLS_VALUES:
            raise ApiError("domain_invalid", f"{name} is one of {MIN_TLS_VALUES}", f"/{name}")
        return {**record, "enabled": enabled, "min_tls": min_tls}

    @staticmethod
    def _public(record: dict[str, Any]) -> dict[str, Any]:
        keys = ("domain", "enabled", "min_tls", "status", "zone_id", "bucket", "created")
        shown = {key: record.get(key) for key in keys}
        # the provider's names (R2 API: Attach Custom Domain); the snake_case ones stay for
        # clients written against earlier versions of the reference
        return {**shown, "zoneId": record.get("zone_id"), "minTLS": record.get("min_tls")}

    async def create(self, params: dict[str, str], body: Any) -> Any:
        account, bucket = self._bucket(params)
        if not isinstance(body, dict):
            raise ApiError("domain_invalid", "the request body must be a JSON object", "/")
        domain = body.get("domain")
        if not isinstance(domain, str) or not valid_domain(domain.lower()):
            raise ApiError("domain_invalid", "domain must be a host name", "/domain")
        domain = domain.lower()
        if self.domains.get(domain) is not None:
            raise ApiError("domain_in_use", domain)
        if "enabled" not in body:
            raise ApiError("domain_invalid", "enabled is required", "/enabled")
        self._check_room(account, bucket)
        name = "zoneId" if "zoneId" in body else "zone_id"  # the provider's name first
        zone_id = body.get(name, self.ctx.identity.zone_id)
        if not isinstance(zone_id, str) or not 0 < len(zone_id) <= 64:
            raise ApiError("domain_invalid", f"{name} must be a zone id (a string)", f"/{name}")
        base = {
            "domain": domain,
            "account": account,
            "bucket": bucket,
            "zone_id": zone_id,
            "status": dict(SSL_STATUS),
            "min_tls": self.ctx.profile.custom_domain_min_tls,
            "created": dt.datetime.fromtimestamp(
                clock.now(self.ctx, account, bucket), dt.UTC
            ).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        }
        record = self.domains.put(self._settings(body, base))
        audit.record(self.ctx, account, bucket, "PutBucketCustomDomain", self._public(record))
        return self._public(record)

    def _check_room(self, account: str, bucket: str) -> None:
        """One more domain fits the bucket's and the account's caps (the registry is rewritten
        whole on every change: its size is bounded by these)."""
        profile = self.ctx.profile
        per_bucket = int(profile.custom_domains_max_per_bucket)
        if self.domains.count(account, bucket) >= per_bucket:
            raise ApiError("domain_limit", f"a bucket has at most {per_bucket}")
        per_account = int(profile.custom_domains_max_per_account)
        if self.domains.count(account) >= per_account:
            raise ApiError("domain_limit", f"an account has at most {per_account}")

    async def list_all(self, params: dict[str, str], body: Any) -> Any:
        account, bucket = self._bucket(params)
        return {"domains": [self._public(r) for r in self.domains.of_bucket(account, bucket)]}

    async def get(self, params: dict[str, str], body: Any) -> Any:
        return self._public(self._owned(params)[2])

    async def update(self, params: dict[str, str], body: Any) -> Any:
        account, bucket, record = self._owned(params)
        if not isinstance(body, dict):
            raise ApiError("domain_invalid", "the request body must be a JSON object", "/")
        record = self.domains.put(self._settings(body, record))
        audit.record(self.ctx, account, bucket, "UpdateBucketCustomDomain", self._public(record))
        return self._public(record)

    async def delete(self, params: dict[str, str], body: Any) -> Any:
        account, bucket, record = self._owned(params)
        self.domains.remove(record["domain"])
        gone = {"domain": record["domain"]}
        audit.record(self.ctx, account, bucket, "DeleteBucketCustomDomain", gone)
        return gone
