"""Raw multipart and copy requests on top of `WireClient`, so tests see every status and code.

Kept out of `s3_wire` so that the generic wire client stays small; every function here sends
exactly one request and returns the `WireReply` unchanged (nothing retried or interpreted).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from conformance.clients.s3_wire import Body, WireClient, WireReply, _escape

XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"


def create_upload(
    wire: WireClient, bucket: str, key: str, headers: Mapping[str, str] | None = None
) -> WireReply:
    """CreateMultipartUpload (`POST ?uploads`)."""
    return wire.request("POST", bucket, key, query=[("uploads", None)], headers=headers)


def upload_id(reply: WireReply) -> str:
    """The UploadId of a successful CreateMultipartUpload reply."""
    reply.assert_ok()
    root = reply.xml
    found = root.findtext("UploadId") if root is not None else None
    assert found, f"no UploadId in the CreateMultipartUpload reply: {reply.body[:200]!r}"
    return found


def start(wire: WireClient, bucket: str, key: str) -> str:
    """Create an upload and return its id (asserting success)."""
    return upload_id(create_upload(wire, bucket, key))


def upload_part(
    wire: WireClient,
    bucket: str,
    key: str,
    upload: str,
    number: int | str,
    body: Body = b"",
    headers: Mapping[str, str] | None = None,
) -> WireReply:
    """UploadPart (`PUT ?partNumber=N&uploadId=U`)."""
    query = [("partNumber", str(number)), ("uploadId", upload)]
    return wire.request("PUT", bucket, key, query=query, body=body, headers=headers)


def upload_part_copy(
    wire: WireClient,
    bucket: str,
    key: str,
    upload: str,
    number: int,
    source: str,
    source_range: str | None = None,
) -> WireReply:
    """UploadPartCopy: UploadPart with a copy-source header and no body."""
    headers = {wire.vendor("copy-source"): source}
    if source_range is not None:
        headers[wire.vendor("copy-source-range")] = source_range
    return upload_part(wire, bucket, key, upload, number, headers=headers)


def completion_body(parts: Iterable[tuple[int, str]], declaration: bool = False) -> bytes:
    """A CompleteMultipartUpload document listing (part number, ETag) exactly as given."""
    items = "".join(
        f"<Part><PartNumber>{number}</PartNumber><ETag>{_escape(etag)}</ETag></Part>"
        for number, etag in parts
    )
    text = f'<CompleteMultipartUpload xmlns="{XMLNS}">{items}</CompleteMultipartUpload>'
    if declaration:
        text = '<?xml version="1.0" encoding="UTF-8"?>\n' + text
    return text.encode()


def complete(
    wire: WireClient,
    bucket: str,
    key: str,
    upload: str,
    parts: Iterable[tuple[int, str]],
    headers: Mapping[str, str] | None = None,
    declaration: bool = False,
) -> WireReply:
    """CompleteMultipartUpload (`POST ?uploadId=U`) with the parts in the order given."""
    body = completion_body(parts, declaration)
    sent = {"Content-Type": "application/xml", **(headers or {})}
    query = [("uploadId", upload)]
    return wire.request("POST", bucket, key, query=query, body=body, headers=sent)


def abort(wire: WireClient, bucket: str, key: str, upload: str) -> WireReply:
    """AbortMultipartUpload (`DELETE ?uploadId=U`)."""
    return wire.request("DELETE", bucket, key, query=[("uploadId", upload)])


def list_parts(wire: WireClient, bucket: str, key: str, upload: str) -> WireReply:
    """ListParts (`GET ?uploadId=U`)."""
    return wire.request("GET", bucket, key, query=[("uploadId", upload)])


def list_uploads(wire: WireClient, bucket: str, **params: str) -> WireReply:
    """ListMultipartUploads (`GET ?uploads`), extra parameters with dashes for underscores."""
    query = [("uploads", None), *((k.replace("_", "-"), v) for k, v in params.items())]
    return wire.request("GET", bucket, query=query)


def copy_object(
    wire: WireClient,
    bucket: str,
    key: str,
    source: str,
    headers: Mapping[str, str] | None = None,
) -> WireReply:
    """CopyObject: a PUT with the copy-source header exactly as given (no slash added)."""
    sent = {wire.vendor("copy-source"): source, **(headers or {})}
    return wire.request("PUT", bucket, key, headers=sent)


def etag(reply: WireReply) -> str:
    """The ETag header of a successful reply, as sent (quotes included)."""
    reply.assert_ok()
    value = reply.header("etag")
    assert value, f"{reply.method} {reply.url}: no ETag header"
    return value
