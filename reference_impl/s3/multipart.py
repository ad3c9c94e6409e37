"""Multipart uploads: CreateMultipartUpload, UploadPart, AbortMultipartUpload.

Completion lives in `multipart_complete`, the two listings in `multipart_list`. Uploads and
their parts persist in `reference_impl.storage.multipart` (SQLite + blobs), so an upload started
before a restart can be finished after it.
"""

from __future__ import annotations

from starlette.requests import ClientDisconnect
from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.numbers import is_decimal
from reference_impl.s3 import checksums
from reference_impl.s3.call import Call, check_content_md5
from reference_impl.s3.conditions_put import prepare_write
from reference_impl.s3.objects import (
    DEFAULT_CONTENT_TYPE,
    _metadata,
    check_declared_length,
    check_key,
)
from reference_impl.services.object_reads import require_bucket
from reference_impl.storage.blobs import BlobInfo, PayloadHashMismatch
from reference_impl.storage.multipart import COMPLETING, Part, Upload, UploadStore, uploads_of
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import xml_response


def uploads(ctx: ServerContext) -> UploadStore:
    return uploads_of(ctx.store)


def require_upload(ctx: ServerContext, call: Call) -> Upload:
    """The upload named by `uploadId`; NoSuchBucket only when the bucket itself is missing."""
    assert call.bucket is not None and call.key is not None
    if not ctx.profile.deviations.upload_part_no_such_bucket:
        require_bucket(ctx, call)
    upload_id = call.query.get("uploadId", "")
    found = uploads(ctx).get(call.account, call.bucket, call.key, upload_id)
    if found is None:
        if ctx.profile.deviations.upload_part_no_such_bucket:
            raise S3Error("NoSuchBucket", BucketName=call.bucket)
        raise S3Error("NoSuchUpload", UploadId=upload_id)
    if found.upload_id in COMPLETING:
        raise S3Error("TooMuchConcurrency")
    return found


def part_number(ctx: ServerContext, call: Call) -> int:
    """`partNumber` as an integer in 1..max parts; anything else is 400 InvalidArgument."""
    text = call.query.get("partNumber", "")
    limit = int(ctx.profile.multipart_max_parts)
    if not is_decimal(text) or not 1 <= int(text) <= limit:
        raise S3Error(
            "InvalidArgument",
            f"Part number must be an integer between 1 and {limit}, inclusive",
            ArgumentName="partNumber",
            ArgumentValue=text[:32],
        )
    return int(text)


def check_part_size(ctx: ServerContext, upload: Upload, number: int, size: int) -> None:
    """Before 2022-10-28 parts of unequal size were refused at UploadPart (profile field).

    A part may not be larger than the parts before it (a smaller one may be the last), and no
    part may follow a smaller one.
    """
    if ctx.profile.multipart_sizes_checked_at_completion:
        return
    for other in uploads(ctx).parts(upload.upload_id):
        if other.number == number:
            continue
        if (other.number < number and size > other.size) or (
            other.number > number and size < other.size
        ):
            raise S3Error("InvalidPart", "All non-trailing parts must have the same length")


async def create_multipart_upload(ctx: ServerContext, call: Call) -> Response:
    assert call.bucket is not None and call.key is not None
    check_key(call.key)
    prepare_write(ctx, call)
    meta = _metadata(ctx, call)
    content_type = call.header("content-type") or DEFAULT_CONTENT_TYPE
    upload = uploads(ctx).create(call.account, call.bucket, call.key, content_type, meta)
    return xml_response(
        "initiate_multipart_upload.xml.j2",
        bucket=call.bucket,
        key=call.key,
        upload_id=upload.upload_id,
    )


async def upload_part(ctx: ServerContext, call: Call) -> Response:
    number = part_number(ctx, call)
    upload = require_upload(ctx, call)
    declared = call.declared_length()
    chunked = call.chunked()  # NotImplemented for a transfer coding other than chunked
    if declared is None and not chunked:
        raise S3Error("MissingContentLength")
    if declared is not None:
        size = check_declared_length(ctx, declared)
        if size == 0 and ctx.profile.deviations.zero_length_part_refused:
            raise S3Error("EntityTooSmall")
        check_part_size(ctx, upload, number, size)
    try:
        blob = await ctx.store.write_blob(call.body_stream(), call.payload_sha256, inline=False)
    except PayloadHashMismatch:
        raise S3Error("XAmzContentSHA256Mismatch") from None
    except ClientDisconnect:
        raise S3Error("IncompleteBody") from None
    try:
        check_content_md5(call.joined("content-md5"), bytes.fromhex(blob.md5_hex))
        if declared is None:
            check_part_size(ctx, upload, number, blob.size)
    except S3Error:
        ctx.store.blobs.remove(blob.name)
        raise
    # checked as PutObject's (BadDigest, blob removed) and echoed; the part keeps no copy
    proved = call.decoder.checksums if call.decoder is not None else {}
    kept = await checksums.settle(ctx, blob, proved, call.request.headers)
    part = record_part(ctx, upload, number, blob)
    headers = {"ETag": f'"{part.etag}"'}
    headers.update({f"{checksums.HEADER_PREFIX}{a}": v for a, v in kept.items()})
    return Response(status_code=200, headers=headers)


def record_part(ctx: ServerContext, upload: Upload, number: int, blob: BlobInfo) -> Part:
    """Attach a written blob as a part, unless the upload ended while the body streamed."""
    store = uploads(ctx)
    if (
        upload.upload_id in COMPLETING
        or store.get(upload.account, upload.bucket, upload.key, upload.upload_id) is None
    ):
        ctx.store.blobs.remove(blob.name)
        raise S3Error("NoSuchUpload", UploadId=upload.upload_id)
    return store.put_part(upload.upload_id, number, blob)


async def abort_multipart_upload(ctx: ServerContext, call: Call) -> Response:
    """Forget the upload and its parts; a repeated (or unknown) abort is no error either."""
    assert call.bucket is not None and call.key is not None
    require_bucket(ctx, call)
    upload_id = call.query.get("uploadId", "")
    if upload_id in COMPLETING:
        raise S3Error("TooMuchConcurrency")
    found = uploads(ctx).get(call.account, call.bucket, call.key, upload_id)
    if found is None:
        if ctx.profile.deviations.abort_repeat_error:
            raise S3Error("NoSuchUpload", UploadId=upload_id)
        return Response(status_code=204)
    if ctx.profile.deviations.abort_keeps:
        return Response(status_code=204)
    uploads(ctx).delete(found.upload_id)
    return Response(status_code=204)
