"""GetObject / HeadObject: the read of one stored object, shared by the S3 and public surfaces.

The public bucket entrypoint serves anonymous reads of the same objects with the same range,
conditional and header handling (public/app.py), so the read sits below both surfaces. A
missing key of a bucket with migration on is fetched from its source first (migration/hook.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from email.utils import formatdate
from functools import lru_cache

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.services import conditions, deviant
from reference_impl.services.migration.hook import require_or_fetch
from reference_impl.services.object_parts import part_range
from reference_impl.services.ranges import parse_range
from reference_impl.storage.blobs import READ_CHUNK
from reference_impl.storage.direct import DirectReader
from reference_impl.storage.engine import Bucket, ObjectRecord
from reference_impl.wire.s3.bodies import ClosingStream, WholeBody
from reference_impl.wire.s3.call_view import CallView
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.header_text import field_value, is_field_text, is_token

META_PREFIX = "x-amz-meta-"
NOT_MODIFIED_HEADERS = frozenset({"etag", "last-modified", "cache-control", "expires"})


def require_bucket(ctx: ServerContext, call: CallView) -> Bucket:
    assert call.bucket is not None
    bucket = ctx.store.get_bucket(call.account, call.bucket)
    if bucket is None:
        if ctx.profile.deviations.missing_bucket_403:
            raise S3Error("AccessDenied")
        raise S3Error("NoSuchBucket", BucketName=call.bucket)
    return bucket


@lru_cache(maxsize=4096)  # GET/HEAD of the same objects repeat; formatdate is ~5 % of a GET
def _http_date(timestamp: float) -> str:
    return formatdate(timestamp, usegmt=True)


def _object_headers(record: ObjectRecord) -> dict[str, str]:
    """The stored object's headers. Metadata a binding wrote may be no header text (a line
    break, a character beyond Latin-1): such a value goes as its RFC 2047 encoded-word, a
    custom name that is no header name is left out and counted in x-amz-missing-meta."""
    headers = {
        "ETag": f'"{record.etag}"',
        "Last-Modified": _http_date(record.modified),
        "Content-Type": field_value(record.content_type),
        "Accept-Ranges": "bytes",
    }
    for name, value in record.meta.get("http", {}).items():
        # a binding put keeps its contentType here too (bindings/objects.py): the record's
        # content_type holds the same value, so one Content-Type header, never two
        if name.lower() != "content-type":
            headers[name] = field_value(str(value))
    missing = 0
    for name, value in record.meta.get("user", {}).items():
        if is_token(name):
            headers[META_PREFIX + name] = field_value(str(value))
        else:
            missing += 1
    if missing:
        headers["x-amz-missing-meta"] = str(missing)
    # no Content-MD5: S3's GetObject / HeadObject answer none, and the spec's MD5 (objects not
    # uploaded by multipart) is a binding's `checksums.md5`; sent, a multipart object's was the
    # MD5 of its joined bytes (docs/reference-choices.md, "No Content-MD5 on reads")
    return headers


# GetObject's `response-*` query parameters and the header each one sets in the answer (a
# presigned download names its file or type this way); keys as `_object_headers` spells them
RESPONSE_OVERRIDES = {
    "response-content-type": "Content-Type",
    "response-content-language": "content-language",
    "response-expires": "expires",
    "response-cache-control": "cache-control",
    "response-content-disposition": "content-disposition",
    "response-content-encoding": "content-encoding",
}


def _override_headers(headers: dict[str, str], query: dict[str, str]) -> None:
    """400 for a value that cannot be a header (a line break, NUL, beyond Latin-1): sent, it
    was a 500 or a connection dropped without an answer."""
    for param, name in RESPONSE_OVERRIDES.items():
        value = query.get(param)
        if value is not None:
            if not is_field_text(value):
                raise S3Error(
                    "InvalidArgument", f"{param} is not a valid header value", ArgumentName=param
                )
            headers[name] = value


def _require_object(ctx: ServerContext, call: CallView) -> ObjectRecord:
    assert call.bucket is not None and call.key is not None
    require_bucket(ctx, call)
    record: ObjectRecord | None = ctx.store.get_object(call.account, call.bucket, call.key)
    if record is None:
        if ctx.profile.deviations.missing_key_403:
            raise S3Error("AccessDenied")
        raise S3Error("NoSuchKey", Key=call.key)
    return record


async def get_object(ctx: ServerContext, call: CallView) -> Response:
    record = await require_or_fetch(ctx, call, _require_object)  # miss: migration source
    headers = _object_headers(record)
    if ctx.profile.deviations.etag_unquoted:
        headers["ETag"] = record.etag
    if ctx.profile.deviations.no_last_modified:
        del headers["Last-Modified"]
    wanted = conditions.from_headers(call.joined)
    if ctx.profile.deviations.if_match_ignored:
        wanted = replace(wanted, if_match=None)
    lists = bool(ctx.profile.conditional_etag_lists)
    if deviant.check_read(ctx, wanted, record, lists) == conditions.NOT_MODIFIED:
        # RFC 9110 15.4.5: a 304 MUST carry the Cache-Control and Expires a 200 would have sent
        kept = {k: v for k, v in headers.items() if k.lower() in NOT_MODIFIED_HEADERS}
        if ctx.profile.deviations.not_modified_without_etag:
            del kept["ETag"]
        return Response(status_code=conditions.NOT_MODIFIED, headers=kept)
    profile = ctx.profile
    query = call.query
    if query and not ctx.profile.deviations.response_overrides_ignored:
        _override_headers(headers, query)
    part = (
        query.get("partNumber") if query and not ctx.profile.deviations.part_number_whole else None
    )
    try:
        if part is not None:
            selected, count = part_range(part, record, call.header("range") is not None)
            if count is not None:
                headers["x-amz-mp-parts-count"] = str(count)
        else:
            wanted_range = call.header("range")
            if not conditions.range_applies(call.header("if-range"), record):
                wanted_range = None  # a stale If-Range: the whole object
            selected = parse_range(
                wanted_range, record.size, profile.deviations.range_exclusive_end
            )
    except S3Error as error:
        if error.code == "InvalidRange" and ctx.profile.deviations.status_416_without_content_range:
            error.headers.pop("Content-Range", None)
        if error.code != "InvalidRange" or not ctx.profile.deviations.range_past_end_full:
            raise
        selected = None
    status = 200
    start, length = 0, record.size
    if selected is not None:
        start, end = selected
        length = end - start + 1
        status = 200 if profile.deviations.range_status_200 else 206
        headers["Content-Range"] = f"bytes {start}-{end}/{record.size}"
    elif (call.header("x-amz-checksum-mode") or "").upper() == "ENABLED":
        for algorithm, value in record.meta.get("checksums", {}).items():
            headers[f"x-amz-checksum-{algorithm}"] = value
    if selected is None and profile.deviations.content_range_always and record.size:
        headers["Content-Range"] = f"bytes 0-{record.size - 1}/{record.size}"
    headers["Content-Length"] = str(length)
    if call.method == "HEAD":
        return Response(status_code=status, headers=headers)
    chunks = ctx.store.read_object(record, start, length)
    if length <= READ_CHUNK:  # one read, one write: no streaming task for a small object
        return WholeBody(b"".join(chunks), status_code=status, headers=headers)

    async def stream() -> AsyncIterator[bytes]:
        if isinstance(chunks, DirectReader):  # a large blob read from disk: await each piece
            try:
                async for piece in chunks:
                    yield piece
            finally:
                chunks.close()
            return
        for chunk in chunks:
            yield chunk

    close = getattr(chunks, "close", None) or (lambda: None)
    return ClosingStream(stream(), close, status_code=status, headers=headers)
