"""Get/Put/DeleteBucketEncryption: AES256 is the only algorithm, and also the default.

Every object is encrypted at rest the same way, so a bucket without a stored configuration
answers the AES256 default and DeleteBucketEncryption returns it to that default.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3.buckets import delete_bucket_setting
from reference_impl.s3.call import Call
from reference_impl.services import audit
from reference_impl.services.object_reads import require_bucket
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import parse_request_body, xml_response

KIND = "encryption"
ALGORITHMS = ("AES256",)
DEFAULT = [{"algorithm": "AES256", "bucket_key": None}]


def _offered(ctx: ServerContext) -> None:
    if not ctx.profile.bucket_encryption:
        raise S3Error("NotImplemented", "Bucket encryption configuration is not supported")


async def put_bucket_encryption(ctx: ServerContext, call: Call) -> Response:
    _offered(ctx)
    bucket = require_bucket(ctx, call)
    body = await call.small_body()
    root = await parse_request_body(body, not ctx.profile.deviations.refuse_xml_declaration)
    if root.tag != "ServerSideEncryptionConfiguration":
        raise S3Error("MalformedXML")
    rules = []
    for rule in root.findall("Rule"):
        algorithm = (rule.findtext("ApplyServerSideEncryptionByDefault/SSEAlgorithm") or "").strip()
        if not algorithm:
            raise S3Error("MalformedXML", "SSEAlgorithm is required")
        if algorithm not in ALGORITHMS:
            raise S3Error(
                "InvalidArgument",
                f"Only AES256 is supported, not {algorithm}",
                ArgumentName="SSEAlgorithm",
            )
        bucket_key = rule.findtext("BucketKeyEnabled")
        rules.append({"algorithm": algorithm, "bucket_key": bucket_key})
    if not rules:
        raise S3Error("MalformedXML", "A ServerSideEncryptionConfiguration needs a Rule")
    ctx.store.put_bucket_config(call.account, bucket.name, KIND, rules)
    audit.record_s3(ctx, call, "PutBucketEncryption", {"rules": rules})
    return Response(status_code=200)


async def get_bucket_encryption(ctx: ServerContext, call: Call) -> Response:
    _offered(ctx)
    bucket = require_bucket(ctx, call)
    rules = ctx.store.get_bucket_config(call.account, bucket.name, KIND) or DEFAULT
    return xml_response("encryption.xml.j2", rules=rules)


async def delete_bucket_encryption(ctx: ServerContext, call: Call) -> Response:
    _offered(ctx)
    return delete_bucket_setting(ctx, call, KIND, "DeleteBucketEncryption")


Operation = Callable[[ServerContext, Call], Awaitable[Response]]
OPERATIONS: dict[tuple[str, str | None], Operation] = {
    ("PUT", "encryption"): put_bucket_encryption,
    ("GET", "encryption"): get_bucket_encryption,
    ("DELETE", "encryption"): delete_bucket_encryption,
}
