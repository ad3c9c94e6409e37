"""What PutObject and CreateMultipartUpload check before taking a body: bucket and conditions.

Both operations share the provider's `cf-create-bucket-if-missing` header and the conditional
412 on an existing object (dates.md; decisions.md "CreateMultipartUpload see PutObject").
A write's conditions are checked twice: before its body (a cheap early 412) and again when it
publishes, against the object then under the key, in the publishing transaction
(`publish_check`): of two `If-None-Match: *` writes only the first to publish wins.
"""

from __future__ import annotations

from dataclasses import replace

from reference_impl.context import ServerContext
from reference_impl.s3.call import Call
from reference_impl.services import conditions
from reference_impl.services.object_reads import require_bucket
from reference_impl.storage.engine import ObjectRecord, PublishCheck
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.names import valid_bucket_name

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
    wanted = conditions.from_headers(call.joined)
    if not wanted.present:
        return
    if ctx.profile.deviations.put_met_conditions_412:
        raise S3Error("PreconditionFailed", Condition="any")
    current = ctx.store.get_object(call.account, call.bucket, call.key)
    _check(ctx, wanted, current)


def on_missing(
    ctx: ServerContext, wanted: conditions.Conditions, current: ObjectRecord | None
) -> conditions.Conditions:
    """The conditions a write checks; the break modified-since-missing-writes drops
    If-Modified-Since on a missing key (the old reference: no object, no date to compare), the
    break unmodified-since-missing-412 fails If-Unmodified-Since there too."""
    missing = current is None and wanted.if_unmodified_since is not None
    if missing and ctx.profile.deviations.unmodified_since_missing_412:
        raise S3Error("PreconditionFailed", Condition="If-Unmodified-Since")
    if current is None and ctx.profile.deviations.modified_since_missing_writes:
        return replace(wanted, if_modified_since=None)
    return wanted


def _check(ctx: ServerContext, wanted: conditions.Conditions, current: ObjectRecord | None) -> None:
    wanted = on_missing(ctx, wanted, current)
    if current is None and ctx.profile.deviations.if_match_missing_writes:
        wanted = replace(wanted, if_match=None)
    lists = bool(ctx.profile.conditional_etag_lists)
    conditions.check_write(wanted, current, lists, missing=missing_if_match(ctx))


def publish_check(
    ctx: ServerContext, call: Call, prefix: str = "", label: str = ""
) -> PublishCheck | None:
    """The request's write conditions (`<prefix>if-match` ...) for `Store.put_object(check=)`.

    None when there are none, or when the break `write-conditions-at-start` makes the write
    trust its early check (the defect of issue 26: both create-if-absent writes win).
    """
    wanted = conditions.from_headers(call.joined, prefix)
    if not wanted.present or ctx.profile.deviations.write_conditions_at_start:
        return None
    if prefix:  # CopyObject's destination conditions: no missing-key special cases
        lists = bool(ctx.profile.conditional_etag_lists)
        return lambda current: conditions.check_write(
            on_missing(ctx, wanted, current), current, lists, label
        )
    return lambda current: _check(ctx, wanted, current)


def missing_if_match(ctx: ServerContext) -> str:
    """The error of an If-Match write on a missing key: S3's 404 NoSuchKey (break: 412)."""
    return "PreconditionFailed" if ctx.profile.deviations.if_match_missing_412 else "NoSuchKey"


def prepare_write(ctx: ServerContext, call: Call) -> None:
    ensure_bucket(ctx, call)
    check_write_conditions(ctx, call)
