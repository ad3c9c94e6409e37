"""GetObject's `response-*` overrides and `?partNumber=` (S3 semantics presigned downloads and
parallel downloaders rely on)."""

from __future__ import annotations

import re

import pytest

from conformance.clients import s3_multipart as mp

PART = 5 * 1024 * 1024
OVERRIDES = {
    "content-type": "text/x-override",
    "content-language": "de-CH",
    "expires": "Thu, 01 Dec 1994 16:00:00 GMT",
    "cache-control": "no-cache",
    "content-disposition": 'attachment; filename="x.bin"',
    "content-encoding": "identity",
}


@pytest.fixture
def plain(s3, bucket, names):
    """(bucket, key) of a small object stored as text/plain."""
    key = names.key()
    headers = {"Content-Type": "text/plain"}
    s3.wire.put_object(bucket, key, b"0123456789", headers=headers).assert_ok()
    return bucket, key


@pytest.mark.rule("storage.get-object.response-overrides")
@pytest.mark.parametrize("header", sorted(OVERRIDES))
def test_response_override_sets_the_header(s3, plain, header):
    """`response-<header>=<value>` on a signed GET answers with `<header>: <value>`."""
    bucket, key = plain
    value = OVERRIDES[header]
    reply = s3.wire.request("GET", bucket, key, query=[(f"response-{header}", value)]).assert_ok()
    assert reply.header(header) == value, (
        f"GET {reply.url}: {header} is {reply.header(header)!r}, expected {value!r}"
    )


@pytest.mark.rule("storage.get-object.response-overrides")
def test_every_response_override_of_one_request_is_applied(s3, plain):
    """All six `response-*` parameters in one GET (a presigned download naming its file, type
    and caching at once): each sets its header, not only the first the server reads (AWS's
    GetObject reference: "you can override values for a set of response headers")."""
    bucket, key = plain
    query = [(f"response-{header}", value) for header, value in sorted(OVERRIDES.items())]
    reply = s3.wire.request("GET", bucket, key, query=query).assert_ok()
    seen = {header: reply.header(header) for header in OVERRIDES}
    assert seen == OVERRIDES, f"GET {reply.url}: headers {seen}, expected {OVERRIDES}"


@pytest.fixture
def multipart_object(s3, bucket, names):
    """(bucket, key, data) of an object completed from parts of 5 MiB, 5 MiB and 1 B (a one-byte
    last part: the smallest part that is not empty)."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    sizes, parts, data = [PART, PART, 1], [], b""
    for number, size in enumerate(sizes, start=1):
        body = bytes([number]) * size
        parts.append((number, mp.etag(mp.upload_part(s3.wire, bucket, key, upload, number, body))))
        data += body
    done = mp.complete(s3.wire, bucket, key, upload, parts).assert_ok()
    assert done.status == 200
    return bucket, key, data


@pytest.mark.rule("storage.get-object.part-number")
@pytest.mark.parametrize("number", [1, 2, 3])
def test_part_of_a_multipart_object(s3, multipart_object, number):
    """partNumber=N answers 206 with the part's bytes, Content-Range and the parts count."""
    bucket, key, data = multipart_object
    start = (number - 1) * PART
    end = start + (PART if number < 3 else 1) - 1
    reply = s3.wire.request("GET", bucket, key, query=[("partNumber", str(number))])
    seen = (
        reply.status,
        reply.header("content-range"),
        reply.header(s3.wire.vendor("mp-parts-count")),
    )
    want = (206, f"bytes {start}-{end}/{len(data)}", "3")
    assert seen == want, (
        f"GET {reply.url}: (status, Content-Range, parts count) {seen}, expected {want}"
    )
    assert reply.body == data[start : end + 1], f"GET {reply.url}: not the bytes of part {number}"


@pytest.mark.rule("storage.get-object.part-number")
def test_first_part_before_an_empty_last_part(s3, bucket, names):
    """An object completed from a 5 MiB part and an empty last part (S3: no minimum size for the
    last part): partNumber=1 is still that first part, 206 with its Content-Range and the parts
    count 2. An implementer who looks at the wrong part's size (the last one, empty) answers
    the whole object, 200. N/A where the target refuses the empty part."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    first = mp.upload_part(s3.wire, bucket, key, upload, 1, b"a" * PART).assert_ok()
    empty = mp.upload_part(s3.wire, bucket, key, upload, 2, b"")
    if empty.status != 200:
        mp.abort(s3.wire, bucket, key, upload)
        pytest.skip(f"N/A: an empty part is refused ({empty.status})")
    parts = [(1, mp.etag(first)), (2, mp.etag(empty))]
    done = mp.complete(s3.wire, bucket, key, upload, parts)
    if done.status != 200:
        pytest.skip(f"N/A: a completion with an empty last part is refused ({done.status})")
    reply = s3.wire.request("GET", bucket, key, query=[("partNumber", "1")])
    seen = (
        reply.status,
        reply.header("content-range"),
        reply.header(s3.wire.vendor("mp-parts-count")),
    )
    want = (206, f"bytes 0-{PART - 1}/{PART}", "2")
    assert seen == want, f"GET {reply.url}: (status, Content-Range, parts count) {seen}, not {want}"


@pytest.mark.rule("storage.get-object.part-number")
def test_part_one_of_a_single_part_object(s3, plain):
    """partNumber=1 of an object not uploaded in parts is the whole object."""
    bucket, key = plain
    reply = s3.wire.request("GET", bucket, key, query=[("partNumber", "1")])
    assert reply.status in (200, 206) and reply.body == b"0123456789", (
        f"GET {reply.url}: {reply.status} {reply.body[:100]!r}, expected the whole object"
    )


@pytest.mark.rule("storage.get-object.part-number")
def test_part_one_of_an_empty_object(s3, bucket, names):
    """partNumber=1 of an empty object: its whole (empty) content, a 2xx with no bytes, or a 416
    (no byte of the part can be sent; which one S3 answers its documentation does not say). Any
    Content-Range sent must be valid (RFC 9110 14.4: a range-resp's last-pos is at least its
    first-pos and below the length, so none can name a part of zero bytes). An implementer who
    ranges over an empty part sends `bytes 0--1/0`."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"").assert_ok()
    reply = s3.wire.request("GET", bucket, key, query=[("partNumber", "1")])
    assert reply.status in (200, 206, 416), reply.describe()
    if reply.status != 416:
        assert reply.body == b"", reply.describe()
    sent = reply.header("content-range")
    assert sent is None or _valid_content_range(sent), f"Content-Range {sent!r}"


def _valid_content_range(value: str) -> bool:
    """`bytes first-last/length`, first <= last < length, or `bytes */length` (RFC 9110 14.4)."""
    match = re.fullmatch(r"bytes (?:(\d+)-(\d+)|\*)/(\d+|\*)", value)
    if match is None:
        return False
    first, last, length = match.groups()
    if first is None:
        return True
    return int(first) <= int(last) and (length == "*" or int(last) < int(length))


@pytest.mark.rule("storage.get-object.part-number")
@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize(
    "number",
    ["0", "10001", "2", "-1", "one"],
    ids=["zero", "over-10000", "past-count", "neg", "word"],
)
def test_part_number_outside_the_object_is_refused(s3, plain, method, number):
    """Part numbers run 1 to 10,000 (S3's GetObject / HeadObject partNumber), and a one-part
    object has only part 1: any other partNumber, or one that is not a number, is a 4xx, never
    the object or a part of it."""
    bucket, key = plain
    reply = s3.wire.request(method, bucket, key, query=[("partNumber", number)])
    assert 400 <= reply.status < 500, f"{method} partNumber={number}: {reply.status}, not a 4xx"
