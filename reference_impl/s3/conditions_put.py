"""What PutObject and CreateMultipartUpload check before taking a body: bucket and conditions.

Both operations share the provider's `cf-create-bucket-if-missing` header and the conditional
412 on an existing object (dates.md; decisions.md "CreateMultipartUpload see PutObject").
"""

from __future__ import annotations

from dataclasses import replace

from reference_impl.context import ServerContext
from reference_impl.s3 import conditions
from reference_impl.s3.buckets import require_bucket, valid_bucket_name
from reference_impl.s3.call import Call, broken
from reference_impl.s3.errors import S3Error

CREATE_BUCKET_HEADER = "cf-create-bucket-if-missing"


def ensure_bucket(ctx: ServerContext, call: Call) -> None:
    """NoSuchBucket, unless the request asks for the bucket to be created and may."""
    assert call.bucket is not None
    if ctx.store.get_bucket(call.account, call.bucket) is not None:
        return
    wanted = (call.header(CREATE_BUCKET_HEADER) or "").strip().lower() == "true"
    if wanted and ctx.profile.create_bucket_if_missing:
        if not valid_bucket_name(call.bucket):
            raise S3Error("InvalidBucketName", BucketName=call.bucket)
        ctx.store.create_bucket(call.account, call.bucket, "auto")
        return
    require_bucket(ctx, call)


def check_write_conditions(ctx: ServerContext, call: Call) -> None:
    """412 PreconditionFailed when an If-* header is unmet by the object now under the key."""
    assert call.bucket is not None and call.key is not None
    if not ctx.profile.conditional_writes:
        return
    wanted = conditions.from_headers(call.header)
    if not wanted.present:
        return
    if broken(ctx, "put-met-conditions-412"):
        raise S3Error("PreconditionFailed", Condition="any")
    current = ctx.store.get_object(call.account, call.bucket, call.key)
    if current is None and broken(ctx, "if-match-missing-writes"):
        wanted = replace(wanted, if_match=None)
    lists = bool(ctx.profile.conditional_etag_lists)
    conditions.check_write(wanted, current, lists, missing=missing_if_match(ctx))


def missing_if_match(ctx: ServerContext) -> str:
    """The error of an If-Match write on a missing key: S3's 404 NoSuchKey (break: 412)."""
    return "PreconditionFailed" if broken(ctx, "if-match-missing-412") else "NoSuchKey"


def prepare_write(ctx: ServerContext, call: Call) -> None:
    ensure_bucket(ctx, call)
    check_write_conditions(ctx, call)
