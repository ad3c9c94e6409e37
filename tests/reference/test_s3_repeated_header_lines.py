"""A header sent as two lines is read as the one value SigV4 signed (hostile round 12).

1. Two `x-amz-checksum-crc32` lines on a PutObject / UploadPart: the reference read the first
   line alone, so `right` then `wrong` stored the body with 200 and the wrong claim unread.
   RFC 9110 section 5.3: two lines of a field are one comma-joined value (SigV4 signs them so),
   and `right,wrong` is no CRC32: InvalidRequest, as for that value on one line.
2. aws-chunked: a header claim of the algorithm a trailer is announced for was dropped (the
   trailer's value alone was checked: a wrong header claim stored with 200); a trailer line sent
   twice kept the last (a wrong first value stored with 200). One claim per request, as the
   decoder already answered a header and a trailer of two algorithms.

3. `x-amz-copy-source` as two lines: the first alone was read, so a CopyObject signed for
   `/b/k1,/b/k2` copied `/b/k1`; the joined value names the key `k1,/b/k2` (NoSuchKey here).

As test_s3_checksum_claims.py: AWS's observed answers, no AWS or R2 document, so reference
tests rather than conformance rules.
"""

from __future__ import annotations

import base64
import time
import zlib
from urllib.parse import urlsplit

import pytest
from reliability.rawhttp import connect, read_until_closed, statuses

from conformance.clients import s3_chunked as chunked
from conformance.clients.s3 import WireClient
from conformance.clients.s3_wire import PreparedWire

BODY = b"one body, one checksum, claimed twice"
RIGHT = base64.b64encode(zlib.crc32(BODY).to_bytes(4, "big")).decode()
WRONG = base64.b64encode(zlib.crc32(b"other bytes").to_bytes(4, "big")).decode()
NAME = "x-amz-checksum-crc32"
CHUNKS = [BODY[:20], BODY[20:]]


def _send_split(prepared: PreparedWire, split: str, values: list[str] | None = None) -> bytes:
    """The request with header `split` (signed comma-joined) sent as one line per value; give
    `values` when they hold commas themselves (HTTP dates), which a split at commas would cut."""
    parts = urlsplit(prepared.url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    lines = [f"{prepared.method} {target} HTTP/1.1", f"Host: {parts.netloc}"]
    for name, value in prepared.headers.items():
        if name.lower() == split:
            if values is not None:
                assert value == ",".join(values), "signed over another value than the lines join to"
            lines += [f"{name}: {one}" for one in (value.split(",") if values is None else values)]
        elif name.lower() not in ("host", "content-length"):
            lines.append(f"{name}: {value}")
    body = prepared.body if isinstance(prepared.body, bytes) else b""
    lines += [f"Content-Length: {len(body)}", "Connection: close"]
    sock = connect(prepared.url)
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        raw, _ = read_until_closed(sock, time.monotonic() + 15)
    finally:
        sock.close()
    return raw


def _upload(wire: WireClient, bucket: str, key: str) -> str:
    reply = wire.request("POST", bucket, key, query=[("uploads", None)]).assert_ok()
    assert reply.xml is not None
    return next(el.text or "" for el in reply.xml.iter() if el.tag.endswith("UploadId"))


@pytest.mark.parametrize("values", [[RIGHT, WRONG], [WRONG, RIGHT], [RIGHT, RIGHT]])
@pytest.mark.parametrize("part", [False, True], ids=["put-object", "upload-part"])
def test_two_lines_of_one_checksum_header_are_refused(
    wire: WireClient, bucket: str, part: bool, values: list[str]
) -> None:
    query = [("partNumber", "1"), ("uploadId", _upload(wire, bucket, "k"))] if part else []
    headers = {NAME: ",".join(values)}
    prepared = wire.prepare("PUT", bucket, "k", query=query, headers=headers, body=BODY)
    raw = _send_split(prepared, NAME)
    assert statuses(raw) == [400], raw[:400]
    assert b"<Code>InvalidRequest</Code>" in raw or b"<Code>BadDigest</Code>" in raw, raw[:400]
    if part:
        listed = wire.request("GET", bucket, "k", query=[query[1]]).assert_ok()
        assert b"<PartNumber>" not in listed.body
    else:
        wire.get_object(bucket, "k").assert_error(404, "NoSuchKey")


def test_one_line_is_still_kept(wire: WireClient, bucket: str) -> None:
    prepared = wire.prepare("PUT", bucket, "k", headers={NAME: RIGHT}, body=BODY)
    assert statuses(_send_split(prepared, NAME)) == [200]
    got = wire.get_object(bucket, "k", headers={"x-amz-checksum-mode": "ENABLED"}).assert_ok()
    assert got.body == BODY and got.header(NAME) == RIGHT


def _chunked(wire: WireClient, bucket: str, header: str | None, trailers: list[str]) -> bytes:
    """An unsigned-trailer aws-chunked PUT announcing the CRC32 trailer, sent `trailers` lines."""
    headers = {
        "Content-Encoding": "aws-chunked",
        "x-amz-decoded-content-length": str(len(BODY)),
        "x-amz-trailer": NAME,
    }
    if header is not None:
        headers[NAME] = header
    prepared = wire.prepare(
        "PUT", bucket, "k", headers=headers, payload_hash=chunked.UNSIGNED_TRAILER
    )
    body = chunked.encode(chunked.UNSIGNED_TRAILER, CHUNKS, {})[:-2]  # no closing CRLF yet
    prepared.body = body + "".join(f"{NAME}:{v}\r\n" for v in trailers).encode() + b"\r\n"
    return _send_split(prepared, NAME)


@pytest.mark.parametrize(
    ("header", "trailers"),
    [
        (WRONG, [RIGHT]),  # header claim dropped: the trailer alone was checked
        (RIGHT, [RIGHT]),  # two claims even when both hold
        (None, [WRONG, RIGHT]),  # the last trailer line won
        (None, [RIGHT, RIGHT]),
        (f"{RIGHT},{WRONG}", [RIGHT]),  # two header lines beside the trailer
    ],
    ids=["wrong-header", "both-right", "trailer-wrong-first", "trailer-twice", "header-lines"],
)
def test_a_streamed_checksum_claimed_twice_is_refused(
    wire: WireClient, bucket: str, header: str | None, trailers: list[str]
) -> None:
    raw = _chunked(wire, bucket, header, trailers)
    assert statuses(raw) == [400], raw[:400]
    assert b"<Code>InvalidRequest</Code>" in raw or b"<Code>MalformedTrailerError</Code>" in raw
    wire.get_object(bucket, "k").assert_error(404, "NoSuchKey")


def test_a_streamed_checksum_claimed_once_is_kept(wire: WireClient, bucket: str) -> None:
    assert statuses(_chunked(wire, bucket, None, [RIGHT])) == [200]
    got = wire.get_object(bucket, "k", headers={"x-amz-checksum-mode": "ENABLED"}).assert_ok()
    assert got.body == BODY and got.header(NAME) == RIGHT


@pytest.mark.parametrize("part", [False, True], ids=["copy-object", "upload-part-copy"])
def test_two_copy_source_lines_name_one_joined_source(
    wire: WireClient, bucket: str, part: bool
) -> None:
    wire.put_object(bucket, "src", BODY).assert_ok()
    query = [("partNumber", "1"), ("uploadId", _upload(wire, bucket, "dst"))] if part else []
    name = "x-amz-copy-source"
    headers = {name: f"/{bucket}/src,/{bucket}/other"}
    prepared = wire.prepare("PUT", bucket, "dst", query=query, headers=headers)
    raw = _send_split(prepared, name)
    assert statuses(raw) == [404] and b"<Code>NoSuchKey</Code>" in raw, raw[:400]
    one = wire.prepare("PUT", bucket, "dst", query=query, headers={name: f"/{bucket}/src"})
    assert statuses(_send_split(one, name)) == [200]  # one line: copied as before
