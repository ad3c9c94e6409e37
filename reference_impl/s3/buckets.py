"""Bucket operations: ListBuckets, CreateBucket, DeleteBucket, HeadBucket, GetBucketLocation."""

from __future__ import annotations

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3.call import Call
from reference_impl.services import audit
from reference_impl.services.domains import registry
from reference_impl.services.lifecycle import applier as lifecycle_applier
from reference_impl.services.lifecycle import config as lifecycle_config
from reference_impl.services.object_reads import require_bucket
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.names import valid_bucket_name
from reference_impl.wire.s3.xmlio import parse_request_body, xml_response


def delete_bucket_setting(ctx: ServerContext, call: Call, kind: str, operation: str) -> Response:
    """Delete one stored bucket configuration (CORS, encryption, lifecycle) and audit it: 204."""
    bucket = require_bucket(ctx, call)
    keeps = {
        "cors": ctx.profile.deviations.cors_delete_keeps,
        "encryption": ctx.profile.deviations.encryption_delete_keeps,
        "lifecycle": ctx.profile.deviations.lifecycle_delete_keeps,
    }[kind]
    if not keeps:
        ctx.store.delete_bucket_config(call.account, bucket.name, kind)
    audit.record_s3(ctx, call, operation)
    return Response(status_code=204)


async def create_bucket(ctx: ServerContext, call: Call) -> Response:
    assert call.bucket is not None
    if not valid_bucket_name(call.bucket) and not ctx.profile.deviations.bucket_names:
        raise S3Error("InvalidBucketName", BucketName=call.bucket)
    body = await call.small_body()
    location = "auto"
    if body.strip():
        root = await parse_request_body(body, not ctx.profile.deviations.refuse_xml_declaration)
        if root.tag != "CreateBucketConfiguration":
            raise S3Error("MalformedXML")
        node = root.find("LocationConstraint")
        if node is not None:
            location = node.text or ""
    allowed = ctx.profile.location_constraints
    if allowed is not None and location not in allowed:
        raise S3Error("InvalidLocationConstraint", LocationConstraint=location)
    lock = call.header("x-amz-bucket-object-lock-enabled")
    if lock is not None and lock.strip().lower() == "true":
        if not ctx.profile.deviations.object_lock_ignored:
            raise S3Error("NotImplemented", "Object lock is not supported")
    elif lock is not None and ctx.profile.deviations.object_lock_false_refused:
        raise S3Error("NotImplemented", "Object lock is not supported")
    if not ctx.store.create_bucket(call.account, call.bucket, "auto"):
        raise S3Error("BucketAlreadyOwnedByYou", BucketName=call.bucket)
    if lifecycle_config.seed_default(ctx.store, ctx.profile, call.account, call.bucket):
        lifecycle_applier.ensure_running(ctx)
    audit.record_s3(ctx, call, "CreateBucket", {"location": location})
    headers = {}
    if ctx.profile.create_bucket_location_header:
        headers["Location"] = f"/{call.bucket}"
    return Response(status_code=200, headers=headers)


async def delete_bucket(ctx: ServerContext, call: Call) -> Response:
    bucket = require_bucket(ctx, call)
    empty = ctx.store.bucket_is_empty(call.account, bucket.name)
    if not empty and not ctx.profile.deviations.delete_non_empty:
        raise S3Error("BucketNotEmpty", BucketName=bucket.name)
    if ctx.profile.deviations.delete_bucket_deferred:  # answered; the deletion never runs
        return Response(status_code=204)
    keep_uploads = ctx.profile.deviations.delete_bucket_keeps_uploads
    ctx.store.delete_bucket(call.account, bucket.name, keep_uploads=keep_uploads)
    registry(ctx).remove_bucket(call.account, bucket.name)  # a recreated bucket starts private
    audit.record_s3(ctx, call, "DeleteBucket")
    return Response(status_code=204)


async def head_bucket(ctx: ServerContext, call: Call) -> Response:
    if ctx.profile.deviations.head_missing_bucket_500:  # the defect fixed 2023-06-16
        assert call.bucket is not None
        if ctx.store.get_bucket(call.account, call.bucket) is None:
            raise S3Error("InternalError")
    require_bucket(ctx, call)
    headers = {}
    region = ctx.profile.head_bucket_region_header
    if region is not None:
        headers["x-amz-bucket-region"] = str(region)
    return Response(status_code=200, headers=headers)


async def get_bucket_location(ctx: ServerContext, call: Call) -> Response:
    require_bucket(ctx, call)
    location = ctx.profile.deviations.bucket_location or "auto"
    return xml_response("location.xml.j2", location=location)
