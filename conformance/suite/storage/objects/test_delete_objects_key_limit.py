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
