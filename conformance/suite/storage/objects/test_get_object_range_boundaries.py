"""Ranges at the object's edges: the last byte, one past it, suffixes of the size and beyond.

An implementer may compare the start with > instead of >= the size, or clamp a suffix range
off by one; ranges well inside the object cannot tell.
"""

from __future__ import annotations

import pytest

from .test_get_object_range import BODY

SIZE = len(BODY)


@pytest.fixture
def stored(s3, bucket, names):
    key = names.key()
    s3.wire.put_object(bucket, key, BODY).assert_ok()
    return bucket, key


@pytest.mark.rule("storage.get-object.range-inclusive", "storage.get-object.range-206")
@pytest.mark.parametrize(
    ("header", "first", "last"),
    [
        (f"bytes={SIZE - 1}-{SIZE - 1}", SIZE - 1, SIZE - 1),
        (f"bytes={SIZE - 1}-", SIZE - 1, SIZE - 1),
        ("bytes=-1", SIZE - 1, SIZE - 1),
        (f"bytes=-{SIZE}", 0, SIZE - 1),
        (f"bytes=-{SIZE + 1}", 0, SIZE - 1),
        (f"bytes=0-{SIZE - 1}", 0, SIZE - 1),
    ],
    ids=["last-byte", "last-open", "suffix-1", "suffix-size", "suffix-over", "exact-whole"],
)
def test_edge_ranges(s3, stored, header, first, last):
    """206 with exactly bytes first..last and their Content-Range."""
    reply = s3.wire.get_object(*stored, range=header)
    assert reply.status == 206, f"{header}: status {reply.status}"
    assert reply.body == BODY[first : last + 1], f"{header}: {len(reply.body)} bytes"
    assert reply.header("content-range") == f"bytes {first}-{last}/{SIZE}", header


@pytest.mark.rule("storage.get-object.range-unsatisfiable")
@pytest.mark.parametrize("header", [f"bytes={SIZE}-", f"bytes={SIZE}-{SIZE + 10}"])
def test_start_at_the_size_is_416(s3, stored, header):
    """A range starting exactly at the size selects nothing: 416 InvalidRange."""
    s3.wire.get_object(*stored, range=header).assert_error(416, "InvalidRange")


@pytest.mark.rule("storage.get-object.range-unsatisfiable")
def test_zero_length_suffix_is_416(s3, stored):
    """`bytes=-0` asks for the last 0 bytes: it starts at the size, so it selects nothing.

    RFC 9110 14.1.1: only a suffix range with a non-zero length is satisfiable. An implementer
    may test the suffix length against the wrong constant and answer the whole object.
    """
    s3.wire.get_object(*stored, range="bytes=-0").assert_error(416, "InvalidRange")
