"""R2 buckets on the management API: list (name_contains, per_page, cursor), create, get, delete.

Account scoped: `/accounts/{account_id}/r2/...` answers only for the credentials' own account
(403 otherwise), so one account's credentials never reach another account's buckets. The
bucket list honours `name_contains` on the bucket name only, never the jurisdiction
(decisions.md "ListBuckets"); `location` is always `auto` (spec, Bucket record).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from typing import Any

from starlette.responses import JSONResponse, Response

from reference_impl.context import ServerContext
from reference_impl.numbers import NumberError, parse_decimal
from reference_impl.services import audit
from reference_impl.services.domains import registry
from reference_impl.services.lifecycle import applier as lifecycle_applier
from reference_impl.services.lifecycle import config as lifecycle_config
from reference_impl.wire.mgmt.envelope import ApiError, drop_fields, ok
from reference_impl.wire.s3.names import valid_bucket_name

JURISDICTIONS = ("default", "eu", "fedramp")
JURISDICTION_KIND = "jurisdiction"  # bucket_configs kind holding a bucket's jurisdiction
DEFAULT_PER_PAGE = 20


def with_result_info(ctx: ServerContext, result: Any, info: dict[str, Any]) -> Response:
    """The envelope plus `result_info` (paging), as the provider's list endpoints answer."""
    response = ok(ctx.profile, result)
    if ctx.profile.deviations.bare_result:
        return response
    body = json.loads(bytes(response.body))
    body["result_info"] = info
    return JSONResponse(body)


class R2Buckets:
    """Handlers `(path params + query, body) -> result`, routed by the management app."""

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.profile = ctx.profile

    def account(self, params: dict[str, str]) -> str:
        """The path's account, refused with 403 unless it is the credentials' own."""
        account = params["account"]
        if (
            account != self.ctx.identity.account_id
            and not self.profile.deviations.mgmt_cross_account
        ):
            raise ApiError("account_forbidden", account)
        return account

    def require(self, account: str, name: str) -> Any:
        bucket = self.ctx.store.get_bucket(account, name)
        if bucket is None:
            status = self.profile.deviations.missing_bucket_status
            if status is not None:
                return JSONResponse({"success": False}, status_code=int(status))
            raise ApiError("bucket_not_found", name)
        return bucket

    def describe(self, account: str, bucket: Any) -> dict[str, Any]:
        created = dt.datetime.fromtimestamp(bucket.created, dt.UTC)
        jurisdiction = self.ctx.store.get_bucket_config(account, bucket.name, JURISDICTION_KIND)
        described = {
            "name": bucket.name,
            "creation_date": created.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "location": self.profile.deviations.mgmt_location or "auto",
            "jurisdiction": jurisdiction or "default",
            "storage_class": "Standard",
        }
        return drop_fields(self.profile, "bucket", described)

    async def list(self, p: dict[str, str], body: Any) -> Any:
        account = self.account(p)
        per_page = _int_param(p, "per_page", DEFAULT_PER_PAGE)
        if per_page < 0 or per_page > int(self.profile.mgmt_list_max_per_page):
            raise ApiError("bucket_list_invalid", f"per_page must be 0 to "
                           f"{self.profile.mgmt_list_max_per_page}", "/per_page")  # fmt: skip
        after = _decode_cursor(p.get("cursor"))
        needle = p.get("name_contains", "")
        found = []
        deviant = self.profile.deviations  # break-checks only: they need every bucket
        whole = (
            deviant.name_contains_jurisdiction
            or deviant.name_contains_ignored
            or deviant.per_page_ignored
        )
        listed = (
            self.ctx.store.list_buckets(account)
            if whole
            else self.ctx.store.bucket_page(account, after, needle, per_page + 1)
        )  # one more than the page: is there a next one?
        for bucket in listed:
            item = self.describe(account, bucket)
            haystack = item["name"]
            if self.profile.deviations.name_contains_jurisdiction:
                haystack += "\n" + item.get("jurisdiction", "")
            if self.profile.deviations.name_contains_ignored:
                haystack = needle
            if needle in haystack and (after is None or item["name"] > after):
                found.append(item)
        if self.profile.deviations.per_page_ignored:
            per_page = len(found)
        page = found[:per_page]
        info: dict[str, Any] = {"per_page": per_page}
        if per_page and len(found) > per_page:
            info["cursor"] = _encode_cursor(page[-1]["name"])
        return with_result_info(self.ctx, {"buckets": page}, info)

    async def create(self, p: dict[str, str], body: Any) -> Any:
        account = self.account(p)
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise ApiError("bucket_invalid", "the body must be {name, jurisdiction?}", "/name")
        name = body["name"]
        jurisdiction = body.get("jurisdiction", "default")
        if not valid_bucket_name(name):
            raise ApiError("bucket_invalid", name, "/name")
        if jurisdiction not in JURISDICTIONS:
            raise ApiError("bucket_invalid", f"jurisdiction {jurisdiction!r}", "/jurisdiction")
        if not self.ctx.store.create_bucket(account, name, "auto"):
            raise ApiError("bucket_exists", name)
        if lifecycle_config.seed_default(self.ctx.store, self.ctx.profile, account, name):
            lifecycle_applier.ensure_running(self.ctx)
        if jurisdiction != "default":
            self.ctx.store.put_bucket_config(account, name, JURISDICTION_KIND, jurisdiction)
        change = {"jurisdiction": jurisdiction}
        audit.record(self.ctx, account, name, "CreateBucket", change, self._actor())
        return self.describe(account, self.ctx.store.get_bucket(account, name))

    async def get(self, p: dict[str, str], body: Any) -> Any:
        account = self.account(p)
        bucket = self.require(account, p["bucket"])
        return bucket if isinstance(bucket, Response) else self.describe(account, bucket)

    async def delete(self, p: dict[str, str], body: Any) -> Any:
        account = self.account(p)
        bucket = self.require(account, p["bucket"])
        if isinstance(bucket, Response):
            return bucket
        if not self.ctx.store.bucket_is_empty(account, bucket.name):
            raise ApiError("bucket_not_empty", bucket.name)
        if not self.profile.deviations.bucket_delete_keeps:
            self.ctx.store.delete_bucket(account, bucket.name)
            registry(self.ctx).remove_bucket(account, bucket.name)  # recreated: private
        audit.record(self.ctx, account, bucket.name, "DeleteBucket", None, self._actor())
        return {}

    async def audit_log(self, p: dict[str, str], body: Any) -> Any:
        """`GET /accounts/{account_id}/r2/audit?bucket=&cursor=&per_page=` (reference's own API)."""
        account = self.account(p)
        if not self.profile.audit_logs:
            raise ApiError("route_not_found", "audit logs are not available at this date")
        per_page = _int_param(p, "per_page", 100)
        try:  # an audit id: SQLite's INTEGER is 64-bit
            after = parse_decimal(p.get("cursor") or "0", name="cursor", max_value=2**63 - 1)
        except NumberError as exc:
            raise ApiError("bucket_list_invalid", str(exc), "/cursor") from None
        if not 0 < per_page <= 1000:
            raise ApiError("bucket_list_invalid", "per_page must be 1 to 1000", "/per_page")
        cap = int(self.profile.audit_page_max_bytes)
        items, more = audit.page(self.ctx, account, p.get("bucket"), after, per_page, cap)
        info: dict[str, Any] = {"per_page": per_page}
        if more and items:
            info["cursor"] = str(items[-1]["id"])
        return with_result_info(self.ctx, items, info)

    def _actor(self) -> str:
        return f"user:{self.ctx.identity.email}"


def _int_param(p: dict[str, str], name: str, default: int) -> int:
    raw = p.get(name)
    if raw is None or raw == "":
        return default
    try:
        return parse_decimal(raw, name=name, max_digits=10)
    except NumberError as exc:
        raise ApiError("bucket_list_invalid", str(exc), f"/{name}") from None


def _encode_cursor(name: str) -> str:
    return base64.urlsafe_b64encode(name.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str | None) -> str | None:
    if not cursor:
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return base64.b64decode(padded, altchars=b"-_", validate=True).decode()
    except ValueError:  # binascii.Error, UnicodeDecodeError, and a non-ASCII cursor's own
        raise ApiError("bucket_list_invalid", "invalid cursor", "/cursor") from None
