"""Object operations: PutObject (PUT and POST), GetObject, HeadObject, DeleteObject."""

from __future__ import annotations

from typing import Any

from starlette.requests import ClientDisconnect
from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.numbers import is_decimal
from reference_impl.s3 import checksums
from reference_impl.s3.call import Call, check_content_md5
from reference_impl.s3.conditions_put import prepare_write, publish_check
from reference_impl.s3.content_type import infer as content_type_of
from reference_impl.services import conditions
from reference_impl.services.object_reads import META_PREFIX, require_bucket
from reference_impl.storage.blobs import PayloadHashMismatch
from reference_impl.storage.engine import ObjectRecord
from reference_impl.wire.s3.errors import S3Error

MAX_KEY_BYTES = 1024
MAX_METADATA_BYTES = 8192
HTTP_METADATA = (
    "content-type",
    "content-encoding",
    "content-disposition",
    "content-language",
    "cache-control",
    "expires",
)
DEFAULT_CONTENT_TYPE = "application/octet-stream"


def check_key(key: str) -> None:
    if len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise S3Error("InvalidObjectName", "Object key is longer than 1024 bytes")


def _metadata(ctx: ServerContext, call: Call) -> dict[str, Any]:
    user = {
        name[len(META_PREFIX) :]: value
        for name, value in call.request.headers.items()
        if name.lower().startswith(META_PREFIX)
    }
    limit = MAX_METADATA_BYTES * (2 if ctx.profile.deviations.metadata_limit_doubled else 1)
    if sum(len(k) + len(v) for k, v in user.items()) > limit:
        raise S3Error("MetadataTooLarge")
    if ctx.profile.deviations.drop_user_metadata:
        user = {}
    http = {
        name: call.request.headers[name]
        for name in HTTP_METADATA[1:]
        if name in call.request.headers and not ctx.profile.deviations.http_metadata_dropped
    }
    if "content-encoding" in http and call.streaming is not None:
        # a STREAMING-* body travelled aws-chunked: that coding is transport, not the object's.
        # Under a hex SHA-256 the bytes sent are the object, and S3 stores the header as sent
        # (docs/reference-choices.md, "aws-chunked on a plain PUT")
        kept = [e for e in http["content-encoding"].split(",") if e.strip() != "aws-chunked"]
        if kept:
            http["content-encoding"] = ",".join(kept).strip()
        else:
            del http["content-encoding"]
    return {"user": user, "http": http}


def check_declared_length(ctx: ServerContext, declared: str) -> int:
    """The declared Content-Length of a PutObject or UploadPart body, as a number: a decimal no
    larger than the profile's PutObject limit (InvalidArgument, EntityTooLarge otherwise)."""
    if not is_decimal(declared):
        raise S3Error("InvalidArgument", "Content-Length is not a number")
    if int(declared) > int(ctx.profile.put_object_max_bytes):
        raise S3Error("EntityTooLarge")
    return int(declared)


async def put_object(ctx: ServerContext, call: Call) -> Response:
    assert call.key is not None
    if call.method == "POST" and not ctx.profile.put_object_post:
        raise S3Error("NotImplemented", "PutObject by POST is not supported")
    if not ctx.profile.deviations.key_limit_ignored:
        check_key(call.key)
    prepare_write(ctx, call)  # bucket (or cf-create-bucket-if-missing), If-* → 412
    declared = call.declared_length()
    chunked = call.chunked()
    if declared is None and not chunked and not ctx.profile.deviations.missing_length_as_empty:
        raise S3Error("MissingContentLength")
    if declared is not None:
        check_declared_length(ctx, declared)
    if call.header("x-amz-acl") is not None and ctx.profile.deviations.acl_refused:
        raise S3Error("NotImplemented", "ACLs are not supported")
    meta = _metadata(ctx, call)
    record = await store_body(ctx, call, meta)
    etag = record.etag if ctx.profile.deviations.etag_unquoted else f'"{record.etag}"'
    headers = {"ETag": etag, **call.checksum_headers()}
    headers.update({f"x-amz-checksum-{a}": v for a, v in record.meta.get("checksums", {}).items()})
    return Response(status_code=200, headers=headers)


async def store_body(ctx: ServerContext, call: Call, meta: dict[str, Any]) -> ObjectRecord:
    """Stream the request body into a blob and publish it under the call's key."""
    assert call.bucket is not None and call.key is not None
    try:
        blob = await ctx.store.write_blob(call.body_stream(), call.payload_sha256)
    except PayloadHashMismatch:
        raise S3Error("XAmzContentSHA256Mismatch") from None
    except ClientDisconnect:
        raise S3Error("IncompleteBody") from None
    try:
        if not ctx.profile.deviations.content_md5_ignored:
            check_content_md5(call.joined("content-md5"), bytes.fromhex(blob.md5_hex))
    except S3Error:
        ctx.store.blobs.remove(blob.name)
        raise
    proved = call.decoder.checksums if call.decoder is not None else {}  # aws-chunked trailer
    if kept := await checksums.settle(ctx, blob, proved, call.request.headers):
        meta.setdefault("checksums", {}).update(kept)
    content_type = call.header("content-type") or content_type_of(ctx, call.key, blob)
    if ctx.profile.deviations.content_type_always_inferred:
        content_type = content_type_of(ctx, call.key, blob)
    check = publish_check(ctx, call) if ctx.profile.conditional_writes else None
    unchecked = ctx.profile.deviations.put_publish_unchecked  # the bucket checked at start only
    record: ObjectRecord = ctx.store.put_object(
        call.account, call.bucket, call.key, blob, content_type, meta, check=check,
        bucket_unchecked=unchecked,
    )  # fmt: skip
    return record


async def delete_object(ctx: ServerContext, call: Call) -> Response:
    assert call.bucket is not None and call.key is not None
    require_bucket(ctx, call)
    key = call.key.strip() if ctx.profile.deviations.delete_object_trims else call.key
    wanted = call.joined("if-match")  # two lines are one list (RFC 9110 5.3)
    if wanted is not None and not ctx.profile.deviations.delete_if_match_ignored:
        current = ctx.store.get_object(call.account, call.bucket, key)
        if not conditions.delete_allowed(wanted, current, bool(ctx.profile.conditional_etag_lists)):
            raise S3Error("PreconditionFailed", Condition="If-Match")
    if (
        ctx.profile.deviations.delete_missing_key_404
        and ctx.store.get_object(call.account, call.bucket, key) is None
    ):
        raise S3Error("NoSuchKey", Key=key)
    if not ctx.profile.deviations.delete_keeps:
        ctx.store.delete_object(call.account, call.bucket, key)
    return Response(status_code=204)
