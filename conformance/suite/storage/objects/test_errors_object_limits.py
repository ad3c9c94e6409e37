"""Object key length and user metadata size limits."""

from __future__ import annotations

import pytest

KEY_LIMIT = 1024
METADATA_LIMIT = 8192


@pytest.mark.rule("storage.put-object.key-too-long")
@pytest.mark.parametrize("extra", [0, 1], ids=["at-limit", "over-by-one"])
def test_key_length_limit(s3, bucket, extra):
    """A key of 1024 bytes is accepted; one byte more is 400 InvalidObjectName."""
    key = "k" * (KEY_LIMIT - 2 + extra) + "é"  # multi-byte: the limit counts bytes
    assert len(key.encode()) == KEY_LIMIT + extra
    reply = s3.wire.put_object(bucket, key, b"x")
    if extra:
        reply.assert_error(400, "InvalidObjectName")
    else:
        reply.assert_ok()
        assert s3.wire.get_object(bucket, key).assert_ok().body == b"x"


@pytest.mark.rule("storage.put-object.metadata-too-large")
@pytest.mark.parametrize("extra", [0, 1], ids=["at-limit", "over-by-one"])
def test_metadata_size_limit(s3, bucket, names, extra):
    """User metadata of 8192 bytes (names and values) is accepted; more is MetadataTooLarge."""
    name = "big"
    value = "v" * (METADATA_LIMIT - len(name) + extra)
    header = s3.wire.vendor(f"meta-{name}")
    reply = s3.wire.put_object(bucket, names.key(), b"x", headers={header: value})
    if extra:
        reply.assert_error(400, "MetadataTooLarge")
    else:
        reply.assert_ok()
