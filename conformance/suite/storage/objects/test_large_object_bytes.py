"""Objects past 8 MiB: a range with an unaligned start and end, and a copy, keep exact bytes.

Small bodies cannot tell: an implementation may read a large object differently (the
reference reads 8 MiB and more in aligned blocks around the page cache and cuts the head and
tail off, and a copy reads its source on another path), and an off-by-one in that cutting
shows only there. Every 4-byte word of the body holds its own index, so a shifted read or a
tail left uncut never matches.
"""

from __future__ import annotations

import hashlib
from array import array

import pytest

from conformance.clients import s3_multipart as mp

MIB = 1024 * 1024
SIZE = 11 * MIB + 12_346  # past 8 MiB, not a multiple of any block size
WORDS = array("I", range(SIZE // 4 + 1)).tobytes()
BODY = WORDS[:SIZE]


@pytest.fixture
def stored(s3, bucket, names):
    key = names.key()
    s3.wire.put_object(bucket, key, BODY).assert_ok()
    return bucket, key


@pytest.mark.rule("storage.get-object.range-inclusive")
@pytest.mark.parametrize(
    ("first", "last"),
    [(4097, 4097 + 9 * MIB + 4), (1, SIZE - 2)],
    ids=["unaligned-inside", "all-but-first-and-last"],
)
def test_large_range_is_exact(s3, stored, first, last):
    """A range of more than 8 MiB starting and ending off any block boundary: exactly
    bytes first..last."""
    header = f"bytes={first}-{last}"
    reply = s3.wire.get_object(*stored, range=header)
    assert reply.status in (200, 206), f"{header}: status {reply.status}"
    want = BODY[first : last + 1]
    assert len(reply.body) == len(want), f"{header}: {len(reply.body)} bytes, not {len(want)}"
    assert reply.body == want, f"{header}: the bytes differ from the stored object's"
    assert reply.header("content-range") == f"bytes {first}-{last}/{SIZE}"


@pytest.mark.rule("storage.copy-object.round-trip")
def test_large_copy_has_source_bytes(s3, stored, names):
    """A copy of an object of more than 8 MiB reads back byte-identical to its source."""
    bucket, key = stored
    target = names.key()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    body = s3.wire.get_object(bucket, target).assert_ok().body
    assert len(body) == SIZE, f"the copy has {len(body)} bytes, the source {SIZE}"
    assert hashlib.sha256(body).digest() == hashlib.sha256(BODY).digest(), "bytes differ"
