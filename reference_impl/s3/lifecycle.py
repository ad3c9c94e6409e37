"""Put/Get/DeleteBucketLifecycleConfiguration (object lifecycles, dated: profile `lifecycles`).

Before lifecycles exist the GET stays the placeholder (404 NoSuchLifecycleConfiguration) and
PUT / DELETE are NotImplemented. Once they exist, a bucket with rules returns them
(decisions.md "Placeholder operations"); the rules are applied by reference_impl/services/lifecycle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3 import placeholders
from reference_impl.s3.buckets import delete_bucket_setting
from reference_impl.s3.call import Call
from reference_impl.services import audit
from reference_impl.services.lifecycle import applier, config
from reference_impl.services.object_reads import require_bucket
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import XML_CONTENT_TYPE


def _offered(ctx: ServerContext) -> None:
    if not ctx.profile.lifecycles:
        raise S3Error("NotImplemented", "Object lifecycles are not supported")


async def put_bucket_lifecycle(ctx: ServerContext, call: Call) -> Response:
    _offered(ctx)
    bucket = require_bucket(ctx, call)
    body = await call.small_body()
    try:
        rules = await config.parse_request(body, not ctx.profile.deviations.refuse_xml_declaration)
    except S3Error:
        if ctx.profile.deviations.lifecycle_invalid_500:  # break-checks: an unchecked value crashes
            raise S3Error("InternalError") from None
        raise
    if not ctx.profile.deviations.lifecycle_forgotten:
        ctx.store.put_bucket_config(call.account, bucket.name, config.KIND, rules)
    audit.record_s3(ctx, call, "PutBucketLifecycleConfiguration", {"rules": rules})
    applier.ensure_running(ctx)
    return Response(status_code=200)


async def get_bucket_lifecycle(ctx: ServerContext, call: Call) -> Response:
    placeholder = placeholders.OPERATIONS[("GET", "lifecycle")]
    if not ctx.profile.lifecycles:
        return await placeholder(ctx, call)
    bucket = require_bucket(ctx, call)
    rules = ctx.store.get_bucket_config(call.account, bucket.name, config.KIND)
    if not rules:  # no rules: the answer of a newly created basic bucket (decisions.md)
        return await placeholder(ctx, call)
    return Response(config.render(rules), media_type=XML_CONTENT_TYPE)


async def delete_bucket_lifecycle(ctx: ServerContext, call: Call) -> Response:
    _offered(ctx)
    return delete_bucket_setting(ctx, call, config.KIND, "DeleteBucketLifecycleConfiguration")


Operation = Callable[[ServerContext, Call], Awaitable[Response]]
OPERATIONS: dict[tuple[str, str | None], Operation] = {
    ("PUT", "lifecycle"): put_bucket_lifecycle,
    ("GET", "lifecycle"): get_bucket_lifecycle,
    ("DELETE", "lifecycle"): delete_bucket_lifecycle,
}
