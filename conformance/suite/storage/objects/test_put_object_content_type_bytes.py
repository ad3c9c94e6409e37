"""Content-Type inferred from the body's bytes, with keys whose name gives no hint.

The existing case names a `.png` key for a PNG body, so an implementer who guesses from the
key alone (or reads the signature at the wrong offset) passes it. Here keys have no
extension, and the signatures include ones not at offset 0 (WebP at 8, MP4 at 4).
"""

from __future__ import annotations

import pytest

from .test_put_object_content_type import PDF, PNG, _put_untyped

BODIES = {
    "png": (PNG, "image/png"),
    "pdf": (PDF, "application/pdf"),
    "jpeg": (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + b"\x00" * 32, "image/jpeg"),
    "gif": (b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + b"\x00" * 16, "image/gif"),
    "webp": (b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 32, "image/webp"),
}


@pytest.mark.rule("storage.put-object.content-type-inferred")
@pytest.mark.parametrize("kind", list(BODIES))
def test_content_type_inferred_from_bytes_alone(s3, bucket, names, kind):
    """A key without an extension: the stored type comes from the body's signature."""
    body, expected = BODIES[kind]
    key = names.key()
    assert "." not in key.rsplit("/", 1)[-1]
    _put_untyped(s3, bucket, key, body).assert_ok()
    got = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert (got.header("content-type") or "").split(";")[0] == expected, got.header("content-type")
    assert s3.wire.get_object(bucket, key).assert_ok().body == body
