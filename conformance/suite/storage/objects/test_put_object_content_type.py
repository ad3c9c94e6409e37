"""PutObject Content-Type: inferred from the body when not sent, kept when sent."""

from __future__ import annotations

from typing import Any

import pytest

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
PDF = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"


def _put_untyped(s3: Any, bucket: str, key: str, body: bytes) -> Any:
    """A raw PutObject that sends no Content-Type header at all."""
    prepared = s3.wire.prepare("PUT", bucket, key, body=body)
    prepared.headers = {k: v for k, v in prepared.headers.items() if k.lower() != "content-type"}
    return s3.wire.send(prepared)


@pytest.mark.rule("storage.put-object.content-type-inferred")
@pytest.mark.parametrize(
    ("suffix", "body", "expected"),
    [(".png", PNG, "image/png"), (".pdf", PDF, "application/pdf")],
    ids=["png", "pdf"],
)
def test_content_type_inferred(s3, bucket, names, suffix, body, expected):
    """Without a Content-Type, the stored type is inferred from the body."""
    key = names.key(suffix)
    _put_untyped(s3, bucket, key, body).assert_ok()
    got = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert (got.header("content-type") or "").split(";")[0] == expected, got.header("content-type")


@pytest.mark.rule("storage.put-object.content-type-inferred-dated")
def test_explicit_content_type_kept(s3, bucket, names):
    """A Content-Type sent with the PutObject is kept, not replaced by an inferred one."""
    key = names.key(".png")
    reply = s3.wire.put_object(bucket, key, PNG, headers={"Content-Type": "text/x-declared"})
    reply.assert_ok()
    got = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert got.header("content-type") == "text/x-declared"
