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


@pytest.mark.rule("storage.get-object.range-unsatisfiable-content-range")
def test_suffix_range_of_an_empty_object(s3, bucket, names):
    """bytes=-5 of an empty object: RFC 9110 14.1.1 counts a non-zero suffix as satisfiable, yet
    there is no byte to send and no valid `Content-Range: bytes a-b/0` (14.4: last-pos is at
    least first-pos and below the length). So the answer is the (empty) whole object, 200, or
    416 InvalidRange with `Content-Range: bytes */0` (15.5.17), never a 206. An implementer
    taking the last 5 bytes as `max(0, 0 - 5)` to `0 - 1` sends `bytes 0--1/0`."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"").assert_ok()
    reply = s3.wire.get_object(bucket, key, range="bytes=-5")
    assert reply.status in (200, 416), f"bytes=-5 of an empty object: {reply.describe()}"
    if reply.status == 416:
        assert reply.header("content-range") == "bytes */0", reply.describe()
    else:
        assert reply.body == b"", reply.describe()
