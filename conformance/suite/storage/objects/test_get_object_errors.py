"""GetObject: missing keys, unsatisfiable ranges, Content-Range only on partial reads, 206."""

from __future__ import annotations

import pytest

BODY = bytes(range(256)) * 2  # 512 bytes


@pytest.fixture
def stored(s3, bucket, names):
    key = names.key()
    s3.wire.put_object(bucket, key, BODY).assert_ok()
    return bucket, key


@pytest.mark.rule("storage.get-object.missing-key")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_missing_key_is_404(s3, bucket, names, method):
    """GetObject of a key never written is 404 NoSuchKey (HEAD: 404 without a body)."""
    reply = s3.wire.request(method, bucket, names.key())
    if method == "GET":
        reply.assert_error(404, "NoSuchKey")
    else:
        assert reply.status == 404, f"HeadObject of a missing key: status {reply.status}"


@pytest.mark.rule("storage.get-object.range-unsatisfiable")
@pytest.mark.parametrize("header", ["bytes=512-", "bytes=600-700"], ids=["at-end", "past-end"])
def test_range_past_the_end_is_416(s3, stored, header):
    """A range whose first byte is at or past the end answers 416 InvalidRange."""
    s3.wire.get_object(*stored, range=header).assert_error(416, "InvalidRange")


@pytest.mark.rule("storage.get-object.range-unsatisfiable-content-range")
@pytest.mark.parametrize(
    "header", ["bytes=512-", "bytes=512-512", "bytes=600-700"], ids=["at-end", "one", "past-end"]
)
def test_416_names_the_size(s3, stored, header):
    """A 416 to a byte range names the object's length: `Content-Range: bytes */512` (RFC 9110
    15.5.17, a SHOULD), so the client can ask again for a range that exists."""
    reply = s3.wire.get_object(*stored, range=header)
    reply.assert_error(416, "InvalidRange")
    assert reply.header("content-range") == f"bytes */{len(BODY)}", reply.describe()


@pytest.mark.rule("storage.get-object.content-range-only-partial")
def test_no_content_range_on_full_read(s3, stored):
    """A GetObject without Range answers 200 and no Content-Range."""
    reply = s3.wire.get_object(*stored).assert_ok()
    assert reply.status == 200 and reply.body == BODY
    value = reply.header("content-range")
    assert value is None, f"Content-Range {value!r} on a read without Range"


@pytest.mark.rule("storage.get-object.content-range-only-partial")
@pytest.mark.rule("storage.get-object.content-range-dated")
@pytest.mark.parametrize(
    ("header", "first", "last"),
    [("bytes=0-9", 0, 9), ("bytes=500-", 500, 511), ("bytes=-2", 510, 511)],
    ids=["bounded", "open-ended", "suffix"],
)
def test_content_range_on_ranged_read(s3, stored, header, first, last):
    """A ranged read carries `Content-Range: bytes first-last/size`."""
    reply = s3.wire.get_object(*stored, range=header)
    assert reply.status == 206, f"{header}: status {reply.status}"
    expected = f"bytes {first}-{last}/{len(BODY)}"
    value = reply.header("content-range")
    assert value == expected, f"{header}: Content-Range {value!r}, expected {expected!r}"
    assert reply.body == BODY[first : last + 1]


@pytest.mark.rule("storage.get-object.range-always-206")
@pytest.mark.parametrize(
    "header", ["bytes=0-", "bytes=0-511", "bytes=0-9999", "bytes=-512"],
    ids=["open", "exact", "past-end", "suffix-whole"],
)  # fmt: skip
def test_whole_object_range_is_206(s3, stored, header):
    """A range covering the whole object still answers 206 with a Content-Range."""
    reply = s3.wire.get_object(*stored, range=header)
    assert reply.status == 206, f"{header}: status {reply.status}, expected 206"
    assert reply.body == BODY
    assert reply.header("content-range") == f"bytes 0-511/{len(BODY)}"


@pytest.mark.rule("storage.get-object.range-always-206")
@pytest.mark.parametrize("validator", ["etag", "last-modified"])
def test_range_with_a_current_if_range_is_206(s3, stored, validator):
    """A Range sent with an If-Range naming the object as it is now is still a ranged read: 206.

    The spec: a ranged request always answers 206. RFC 9110 13.1.5: when the If-Range validator
    matches the current representation the server SHOULD process the Range; a server that does not
    evaluate If-Range serves the Range too. Only the matching validator is asserted here: what a
    stale one gets (the whole object, RFC 9110, or the Range) is not in the spec.
    """
    head = s3.wire.request("HEAD", *stored)
    value = head.header("etag" if validator == "etag" else "last-modified")
    assert value, f"HeadObject gave no {validator}"
    reply = s3.wire.get_object(*stored, headers={"Range": "bytes=5-9", "If-Range": value})
    assert reply.status == 206, f"If-Range {value!r} (current): status {reply.status}, expected 206"
    assert reply.body == BODY[5:10]


@pytest.mark.rule("storage.get-object.range-always-206")
def test_range_with_an_unreadable_if_range_is_no_server_error(s3, stored):
    """An If-Range that is neither an ETag nor an HTTP date names no version of the object.

    RFC 9110 13.1.5: the Range then does not apply (200, the whole object); a server that does
    not evaluate If-Range serves the Range (206). Either is allowed here; a 5xx is neither.
    """
    reply = s3.wire.get_object(*stored, headers={"Range": "bytes=5-9", "If-Range": "not-a-date"})
    assert (reply.status, reply.body) in [(200, BODY), (206, BODY[5:10])], (
        f"Range with If-Range 'not-a-date': status {reply.status}, expected 200 or 206"
    )
