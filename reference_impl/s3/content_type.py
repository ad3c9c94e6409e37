"""Content-Type of an object stored without one: inferred from its first bytes, then its key.

Magic numbers come first because they describe the bytes actually stored; the key's extension
is a fallback for text formats without a signature; `application/octet-stream` is the rest.
Also the (deliberately wrong) XML Content-Type of sensitivity runs.
"""

from __future__ import annotations

import mimetypes

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.storage.blobs import BlobInfo

DEFAULT = "application/octet-stream"
SNIFF_BYTES = 512
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"BM", "image/bmp"),
    (b"OggS", "audio/ogg"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
    (b"\x1aE\xdf\xa3", "video/webm"),
    (b"wOFF", "font/woff"),
    (b"wOF2", "font/woff2"),
    (b"\x00asm", "application/wasm"),
)


def sniff(head: bytes) -> str | None:
    """Media type named by the leading bytes, if any signature is known."""
    for signature, media_type in MAGIC:
        if head.startswith(signature):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[4:8] == b"ftyp":
        return "video/mp4"
    return None


def infer(ctx: ServerContext, key: str, blob: BlobInfo) -> str:
    """The Content-Type to store for a PutObject that sent none."""
    if not ctx.profile.put_object_infer_content_type:
        return DEFAULT
    head = b""
    for chunk in ctx.store.read_blob(blob, 0, min(SNIFF_BYTES, blob.size)):
        head += chunk
    guessed = sniff(head) or mimetypes.guess_type(key, strict=False)[0]
    return guessed or DEFAULT


def xml_content_type_deviation(ctx: ServerContext, response: Response) -> Response:
    """Sensitivity runs only: swap application/xml for another type on XML responses."""
    replacement = ctx.profile.deviations.xml_content_type
    if replacement and response.headers.get("content-type", "").startswith("application/xml"):
        response.headers["content-type"] = str(replacement)
    return response
