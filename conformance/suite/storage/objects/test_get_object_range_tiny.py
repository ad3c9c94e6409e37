"""Ranges on a one-byte object, where the size itself is a boundary.

An implementer may treat a one-byte object as unsatisfiable for a suffix range (comparing the
size with 1 where it means 0), or an open range on it as empty.
"""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.get-object.range-206", "storage.get-object.range-inclusive")
@pytest.mark.parametrize("header", ["bytes=-1", "bytes=-5", "bytes=0-0", "bytes=0-", "bytes=0-9"])
def test_one_byte_object_ranges(s3, bucket, names, header):
    """Every satisfiable range of a one-byte object answers 206 with that byte."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"!").assert_ok()
    reply = s3.wire.get_object(bucket, key, range=header)
    assert reply.status == 206, f"{header}: status {reply.status}"
    assert reply.body == b"!" and reply.header("content-range") == "bytes 0-0/1", header


@pytest.mark.rule("storage.get-object.range-unsatisfiable")
def test_one_byte_object_from_its_size_is_416(s3, bucket, names):
    """bytes=1- of a one-byte object selects nothing: 416 InvalidRange."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"!").assert_ok()
    s3.wire.get_object(bucket, key, range="bytes=1-").assert_error(416, "InvalidRange")
