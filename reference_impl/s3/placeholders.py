"""Placeholder bucket sub-resource reads, and the answer to every unsupported operation.

Placeholders answer as a newly created basic bucket does on the standard S3 API (decisions.md,
"Placeholder operations"), so that clients that probe them (SDK helpers, sync tools) go on.
Which ones are offered is dated: `profile.placeholder_operations`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3 import buckets, listing
from reference_impl.s3.call import Call
from reference_impl.services.object_reads import require_bucket
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import xml_response

NOT_FOUND = {
    "lifecycle": "NoSuchLifecycleConfiguration",
    "replication": "ReplicationConfigurationNotFoundError",
    "tagging": "NoSuchTagSet",
    "object-lock": "ObjectLockConfigurationNotFoundError",
}


def _offered(ctx: ServerContext, call: Call, name: str) -> None:
    if name not in (ctx.profile.placeholder_operations or []):
        raise S3Error("NotImplemented")
    require_bucket(ctx, call)


async def get_bucket_acl(ctx: ServerContext, call: Call) -> Response:
    _offered(ctx, call, "acl")
    return xml_response("acl.xml.j2", owner=call.account)


async def get_bucket_versioning(ctx: ServerContext, call: Call) -> Response:
    _offered(ctx, call, "versioning")
    return xml_response("versioning.xml.j2")


def _not_found(name: str) -> Callable[[ServerContext, Call], Awaitable[Response]]:
    async def handler(ctx: ServerContext, call: Call) -> Response:
        _offered(ctx, call, name)
        raise S3Error(NOT_FOUND[name], BucketName=call.bucket or "")

    handler.__name__ = f"get_bucket_{name.replace('-', '_')}"
    return handler


async def unsupported_bucket_operation(ctx: ServerContext, call: Call) -> Response:
    """501 NotImplemented; never a silent fallback to another bucket operation."""
    if ctx.profile.deviations.unsupported_mapped:
        if call.method == "GET":
            return await listing.list_objects_v2(ctx, _without_subresource(call))
        if call.method == "PUT":
            return await buckets.create_bucket(ctx, _without_subresource(call))
        if call.method == "DELETE":
            return await buckets.delete_bucket(ctx, call)
    raise S3Error("NotImplemented")


def _without_subresource(call: Call) -> Call:
    """The call as the old mapping saw it: only the list parameters it understood."""
    kept = {k: v for k, v in call.query.items() if k in listing.V2_PARAMS}
    return Call(call.request, call.account, call.bucket, call.key, kept, None)


Operation = Callable[[ServerContext, Call], Awaitable[Response]]
OPERATIONS: dict[tuple[str, str | None], Operation] = {
    ("GET", "acl"): get_bucket_acl,
    ("GET", "versioning"): get_bucket_versioning,
    **{("GET", name): _not_found(name) for name in NOT_FOUND},
}
