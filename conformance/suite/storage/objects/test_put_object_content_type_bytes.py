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


# Bodies that carry no known signature, or only part of one: a RIFF container that is not WebP
# (a WAV file), a WebP marker at offset 8 without the RIFF header, plain text. Whatever a target
# infers for them, it must not name a media type the bytes do not have.
NOT_SIGNED = {
    "wav": b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00" + b"\x00" * 24,
    "webp-marker-only": b"JUNK\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 32,
    "text": b"plain words, no signature at all, just text\n" * 4,
}


@pytest.mark.rule("storage.put-object.content-type-inferred")
@pytest.mark.parametrize("kind", list(NOT_SIGNED))
def test_content_type_not_inferred_from_a_partial_signature(s3, bucket, names, kind):
    """A key without an extension and a body without a WebP or MP4 signature: the inferred type
    is not image/webp, and not an image or video type at all for the text body."""
    body = NOT_SIGNED[kind]
    key = names.key()
    assert "." not in key.rsplit("/", 1)[-1]
    _put_untyped(s3, bucket, key, body).assert_ok()
    got = s3.wire.request("HEAD", bucket, key).assert_ok()
    stored = (got.header("content-type") or "").split(";")[0].strip().lower()
    assert stored != "image/webp", f"{kind}: stored as {stored!r}"
    if kind == "text":
        assert not stored.startswith(("image/", "video/")), f"text stored as {stored!r}"
