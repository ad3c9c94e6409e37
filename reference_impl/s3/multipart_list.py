"""ListParts and ListMultipartUploads, each available from its date (profile fields)."""

from __future__ import annotations

from urllib.parse import quote

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.numbers import is_decimal
from reference_impl.s3.call import Call
from reference_impl.s3.multipart import require_upload, uploads
from reference_impl.services.object_reads import require_bucket
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import iso8601, xml_response

MAX_ENTRIES = 1000


def _bounded_int(call: Call, name: str, default: int) -> int:
    text = call.query.get(name)
    if text is None or text == "":
        return default
    if not is_decimal(text):
        raise S3Error("InvalidArgument", f"{name} must be a non-negative integer")
    return min(int(text), MAX_ENTRIES)


async def list_parts(ctx: ServerContext, call: Call) -> Response:
    if not ctx.profile.list_parts:
        raise S3Error("NotImplemented", "ListParts is not supported")
    upload = require_upload(ctx, call)
    marker = _bounded_int(call, "part-number-marker", 0)
    limit = _bounded_int(call, "max-parts", MAX_ENTRIES)
    later = [p for p in uploads(ctx).parts(upload.upload_id) if p.number > marker]
    page, truncated = later[:limit], len(later) > limit
    return xml_response(
        "list_parts.xml.j2",
        bucket=upload.bucket,
        key=upload.key,
        upload_id=upload.upload_id,
        marker=marker,
        next_marker=page[-1].number if page else None,
        max_parts=limit,
        truncated=truncated,
        owner=call.account,
        parts=[
            {"number": p.number, "etag": p.etag, "size": p.size, "modified": iso8601(p.modified)}
            for p in page
        ],
    )


async def list_multipart_uploads(ctx: ServerContext, call: Call) -> Response:
    """Uploads in progress, by key then start time; `encoding-type=url` encodes keys."""
    assert call.bucket is not None
    if not ctx.profile.list_multipart_uploads:
        raise S3Error("NotImplemented", "ListMultipartUploads is not supported")
    require_bucket(ctx, call)
    encoding = call.query.get("encoding-type")
    if encoding is not None and encoding != "url":
        raise S3Error("InvalidArgument", "Invalid Encoding Method specified in Request")
    encode = encoding == "url" and bool(ctx.profile.list_multipart_uploads_encoding)
    prefix = call.query.get("prefix", "")
    key_marker = call.query.get("key-marker", "")
    id_marker = call.query.get("upload-id-marker", "")
    limit = _bounded_int(call, "max-uploads", MAX_ENTRIES)
    found = uploads(ctx).uploads_after(
        call.account, call.bucket, prefix, key_marker, id_marker, limit + 1
    )  # one more than the page: is it truncated?
    page, truncated = found[:limit], len(found) > limit

    def shown(text: str) -> str:
        return quote(text, safe="/") if encode else text

    return xml_response(
        "list_multipart_uploads.xml.j2",
        bucket=call.bucket,
        key_marker=shown(key_marker),
        upload_id_marker=id_marker,
        next_key_marker=shown(page[-1].key) if truncated and page else None,
        next_upload_id_marker=page[-1].upload_id if truncated and page else "",
        prefix=shown(prefix),
        encoding_type="url" if encode else None,
        max_uploads=limit,
        truncated=truncated,
        owner=call.account,
        uploads=[
            {"key": shown(u.key), "upload_id": u.upload_id, "initiated": iso8601(u.created)}
            for u in page
        ],
    )
