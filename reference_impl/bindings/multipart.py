"""Multipart uploads through the binding (2022-11-21): create, resume, uploadPart, complete, abort.

Uploads and parts live in the engine's upload store (`reference_impl/storage/multipart.py`), so an
upload begun through the binding could be listed through the S3 API. `resumeMultipartUpload` is
local to the worker (it only names an upload), so the bridge sends the upload id with each call.
"""

from __future__ import annotations

from typing import Any

from reference_impl.bindings import base64_body, objects
from reference_impl.bindings.base64_body import Body
from reference_impl.bindings.bucket import (
    BindingBucket,
    bucket_gone,
    check_key,
    storage_full,
)
from reference_impl.bindings.errors import BindingError, store_error, type_error
from reference_impl.storage.engine import BucketGone
from reference_impl.storage.full import StorageFull
from reference_impl.storage.multipart import (
    COMPLETING,
    Part,
    Upload,
    UploadGone,
    multipart_etag,
    uploads_of,
)

MIN_PART_BYTES = 5 * 1024 * 1024
MAX_PART_NUMBER = 10_000


def _enabled(bucket: BindingBucket, operation: str) -> None:
    if not bucket.profile.bindings_multipart:
        raise type_error(operation, "multipart uploads are not available on this binding")


def _upload_gone(operation: str) -> BindingError:
    return store_error(operation, "The specified multipart upload does not exist.", 10024)


def _busy(operation: str) -> BindingError:
    """The upload's completion is running (TooMuchConcurrency, the binding's 10058)."""
    return store_error(operation, "A completion of this multipart upload is running.", 10058)


def _upload(bucket: BindingBucket, operation: str, key: Any, upload_id: Any) -> Upload:
    _enabled(bucket, operation)
    found = uploads_of(bucket.ctx.store).get(
        bucket.account, bucket.name, check_key(operation, key), str(upload_id)
    )
    if found is None:
        raise _upload_gone(operation)
    if found.upload_id in COMPLETING:  # as the S3 surface: never under a running completion
        raise _busy(operation)
    return found


async def create(bucket: BindingBucket, key: Any, options: dict[str, Any]) -> dict[str, Any]:
    _enabled(bucket, "createMultipartUpload")
    key = check_key("createMultipartUpload", key)
    meta = bucket._meta(options, "createMultipartUpload")
    content_type = meta["http"].get("content-type", "application/octet-stream")
    try:
        upload = uploads_of(bucket.ctx.store).create(
            bucket.account, bucket.name, key, content_type, meta
        )
    except BucketGone:
        raise bucket_gone("createMultipartUpload") from None
    return {"key": key, "uploadId": upload.upload_id}


async def upload_part(
    bucket: BindingBucket, key: Any, upload_id: Any, number: Any, value: Body
) -> dict[str, Any]:
    upload = _upload(bucket, "uploadPart", key, upload_id)
    if (
        isinstance(number, bool)
        or not isinstance(number, int)
        or not 1 <= number <= MAX_PART_NUMBER
    ):
        raise type_error("uploadPart", f"partNumber must be from 1 to {MAX_PART_NUMBER}")
    try:
        blob = await bucket.ctx.store.write_blob(base64_body.stream(value), inline=False)
        if upload.upload_id in COMPLETING:  # began while the body was written
            bucket.ctx.store.blobs.remove(blob.name)
            raise _busy("uploadPart")
        part = uploads_of(bucket.ctx.store).put_part(upload.upload_id, number, blob)
    except UploadGone:
        raise _upload_gone("uploadPart") from None
    except StorageFull:
        raise storage_full("uploadPart") from None
    return {"partNumber": part.number, "etag": part.etag}


def _chosen(stored: dict[int, Part], parts: Any) -> list[Part]:
    if not isinstance(parts, list) or not parts:
        raise type_error("complete", "parts must be a non-empty list of {partNumber, etag}")
    if len(parts) > MAX_PART_NUMBER:  # a bridge body of 128 MiB holds millions of them
        raise type_error("complete", f"parts holds at most {MAX_PART_NUMBER} entries")
    for item in parts:
        number = item.get("partNumber") if isinstance(item, dict) else None
        if (
            isinstance(number, bool)
            or not isinstance(number, int)
            or not 1 <= number <= MAX_PART_NUMBER
            or not isinstance(item.get("etag"), str)
        ):
            message = f"each part is {{partNumber: 1 to {MAX_PART_NUMBER}, etag: string}}"
            raise type_error("complete", message)
    numbers = [item["partNumber"] for item in parts]
    if len(set(numbers)) != len(numbers):  # sorting alone would join such a part twice
        raise type_error("complete", "a part number is listed more than once")
    chosen: list[Part] = []
    for item in sorted(parts, key=lambda p: int(p["partNumber"])):
        part = stored.get(item["partNumber"])
        if part is None or item["etag"].strip('"') != part.etag:
            raise store_error(
                "complete", "One or more of the specified parts could not be found.", 10025
            )
        chosen.append(part)
    for part in chosen[:-1]:
        if part.size < MIN_PART_BYTES:
            raise store_error(
                "complete",
                "Your proposed upload is smaller than the minimum allowed object size.",
                10011,
            )
    return chosen


async def complete(bucket: BindingBucket, key: Any, upload_id: Any, parts: Any) -> dict[str, Any]:
    upload = _upload(bucket, "complete", key, upload_id)
    store = bucket.ctx.store
    uploads = uploads_of(store)
    chosen = _chosen({p.number: p for p in uploads.parts(upload.upload_id)}, parts)
    joined = chosen[:-1] if bucket.profile.deviations.bindings_multipart_drop_last_part else chosen
    meta = {**upload.meta, objects.MULTIPART_KEY: True}
    COMPLETING.add(upload.upload_id)
    try:
        blob = await uploads.join(joined)
        if uploads.get(upload.account, upload.bucket, upload.key, upload.upload_id) is None:
            store.blobs.remove(blob.name)  # its bucket was deleted meanwhile
            raise UploadGone(upload.upload_id)
        record = store.put_object(
            bucket.account,
            bucket.name,
            upload.key,
            blob,
            upload.content_type,
            meta,
            etag=multipart_etag(chosen),
        )
    except UploadGone:
        raise _upload_gone("complete") from None
    except BucketGone:
        raise bucket_gone("complete") from None
    except StorageFull:
        raise storage_full("complete") from None
    finally:
        COMPLETING.discard(upload.upload_id)
    uploads.delete(upload.upload_id)
    return bucket.describe(record)


async def abort(bucket: BindingBucket, key: Any, upload_id: Any) -> None:
    """Forget the upload; aborting one that is already gone is no error."""
    _enabled(bucket, "abort")
    uploads = uploads_of(bucket.ctx.store)
    if uploads.get(bucket.account, bucket.name, check_key("abort", key), str(upload_id)):
        if str(upload_id) in COMPLETING:
            raise _busy("abort")
        uploads.delete(str(upload_id))
