"""DeleteObjects' limit of keys per request."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.delete-objects.key-limit")
@pytest.mark.parametrize("extra", [0, 1], ids=["at-limit", "over-by-one"])
def test_delete_objects_key_limit(s3, bucket, expected, extra):
    """DeleteObjects takes the limit of keys and refuses one more with MalformedXML."""
    keys = [f"k{i}" for i in range(expected.delete_objects_max_keys + extra)]
    reply = s3.wire.delete_objects(bucket, keys, quiet=True)
    if extra:
        reply.assert_error(400, "MalformedXML")
    else:
        reply.assert_ok()


LONGEST_KEY_BYTES = 1024  # the key length limit (InvalidObjectName beyond it)


@pytest.mark.rule("storage.delete-objects.key-limit")
def test_delete_objects_at_both_limits_at_once(s3, bucket, expected):
    """The limit of keys, each of the longest length a key may have: a valid request of a bit
    over 1 MB of XML, which an implementer capping request documents at 1 MiB refuses."""
    count = expected.delete_objects_max_keys
    keys = [f"k{i:05d}".ljust(LONGEST_KEY_BYTES, "x") for i in range(count)]
    s3.wire.delete_objects(bucket, keys, quiet=True).assert_ok()
