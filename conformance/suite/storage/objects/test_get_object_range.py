"""GetObject with a Range header."""

from __future__ import annotations

import pytest

BODY = bytes(range(256)) * 4  # 1024 bytes, each position recognisable


@pytest.fixture
def stored(s3, bucket, names):
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=BODY)
    return bucket, key


@pytest.mark.rule("storage.get-object.range-inclusive")
@pytest.mark.parametrize(
    ("header", "first", "last"),
    [("bytes=0-0", 0, 0), ("bytes=10-19", 10, 19), ("bytes=1000-1023", 1000, 1023)],
)
def test_range_end_is_inclusive(s3, stored, header, first, last):
    """A range `a-b` returns bytes a through b, both included."""
    reply = s3.wire.get_object(*stored, range=header)
    assert reply.status in (200, 206), f"{header}: status {reply.status}"
    assert reply.body == BODY[first : last + 1], f"{header}: got {len(reply.body)} bytes"
    assert reply.header("content-range") == f"bytes {first}-{last}/{len(BODY)}"


@pytest.mark.rule("storage.get-object.range-unit-case-insensitive")
@pytest.mark.parametrize("unit", ["Bytes", "BYTES"])
def test_range_unit_any_case(s3, stored, unit):
    """The unit `bytes` in another case names the same range (RFC 9110 14.1): 206, ten bytes."""
    reply = s3.wire.get_object(*stored, range=f"{unit}=10-19")
    assert reply.status == 206, f"{unit}=10-19: status {reply.status}, expected 206"
    assert reply.body == BODY[10:20], f"{unit}=10-19: got {len(reply.body)} bytes"


@pytest.mark.rule("storage.get-object.range-206")
@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("bytes=0-0", BODY[:1]),
        ("bytes=100-", BODY[100:]),
        ("bytes=-24", BODY[-24:]),
        ("bytes=0-", BODY),
        ("bytes=0-5000", BODY),
    ],
    ids=["first-byte", "open-ended", "suffix", "whole-open", "past-end"],
)
def test_ranged_read_is_206(s3, stored, header, expected):
    """Every satisfiable ranged read answers 206 Partial Content."""
    reply = s3.wire.get_object(*stored, range=header)
    assert reply.status == 206, f"{header}: status {reply.status}, expected 206"
    assert reply.body == expected


@pytest.mark.rule("storage.head-object.range-content-length")
@pytest.mark.parametrize(
    ("header", "length"),
    [("bytes=0-0", 1), ("bytes=10-19", 10), ("bytes=-24", 24), ("bytes=1000-", 24)],
    ids=["first-byte", "ten", "suffix", "open-ended"],
)
def test_head_with_range_gives_the_range_length(s3, stored, header, length):
    """HeadObject with a satisfiable Range answers one of two consistent ways: the range's
    Content-Length (AWS's HeadObject reference: "If the Range is satisfiable, only the
    ContentLength is affected"), with a Content-Range naming those bytes if it sends one; or the
    whole object's, without a Content-Range (RFC 9110 14.2: a server MUST ignore Range on any
    method but GET). Never the whole size beside a partial Content-Range, a header block that
    describes no answer the GET would give. No body either way."""
    reply = s3.wire.request("HEAD", *stored, headers={"Range": header})
    assert reply.status in (200, 206), f"HEAD {header}: status {reply.status}"
    assert reply.body == b"", f"HEAD {header}: {len(reply.body)} body bytes"
    sent = reply.header("content-length")
    content_range = reply.header("content-range")
    if sent == str(len(BODY)) and length != len(BODY):  # Range ignored, as RFC 9110 14.2 says
        assert content_range is None, (
            f"HEAD {header}: Content-Length {sent} (the whole object) beside Content-Range "
            f"{content_range}"
        )
        return
    assert sent == str(length), (
        f"HEAD {header}: Content-Length {sent}, expected {length} (the range) or {len(BODY)}"
    )
    if content_range is not None:
        first = int(content_range.split()[1].split("-")[0])
        expected = f"bytes {first}-{first + length - 1}/{len(BODY)}"
        assert content_range == expected, f"HEAD {header}: Content-Range {content_range}"
