"""Transfer codings of S3 request bodies: `chunked` only, whatever its letter case.

The listener takes the chunked framing off a body and nothing else. Before, a PUT sent with
`Transfer-Encoding: gzip, chunked` was answered 200 and its still-gzipped bytes stored as the
object (the client meant the decoded body: RFC 9112 section 6.1 wants 501 for a coding the
server does not apply, as S3 answers), and `Transfer-Encoding: Chunked` (codings are
case-insensitive, section 7) was read as chunked by the listener but refused 411 by the handler.
"""

from __future__ import annotations

import gzip
import time

import pytest
from reliability.rawhttp import connect, read_until_closed, request_head, statuses
from reliability.refproc import RefProcess

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_wire import Query, WireClient

BUCKET = "transfer-codings"
BODY = b"the body the client meant"


def _put(ref: RefProcess, key: str, coding: str, body: bytes, query: Query = ()) -> int:
    """A PUT whose body travels chunked under `Transfer-Encoding: coding`; its status."""
    prepared = ref.wire().prepare(
        "PUT", BUCKET, key, query=query, headers={"Transfer-Encoding": coding},
        payload_hash="UNSIGNED-PAYLOAD",
    )  # fmt: skip
    sock = connect(prepared.url)
    framed = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    sock.sendall(request_head("PUT", prepared.url, {**prepared.headers, "Connection": "close"}))
    sock.sendall(framed)
    raw, _ = read_until_closed(sock, time.monotonic() + 10)
    sock.close()
    codes = statuses(raw)
    assert len(codes) == 1, raw[:400]
    return codes[0]


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> WireClient:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    return client


@pytest.mark.parametrize("coding", ["gzip, chunked", "deflate,chunked", "x-unknown, chunked"])
def test_a_coding_other_than_chunked_is_501_and_stores_nothing(
    ref: RefProcess, wire: WireClient, coding: str
) -> None:
    assert _put(ref, "coded", coding, gzip.compress(BODY)) == 501
    assert wire.get_object(BUCKET, "coded").status == 404, "the coded bytes were stored"
    upload = mp.start(wire, BUCKET, "coded-part")
    query = [("partNumber", "1"), ("uploadId", upload)]
    assert _put(ref, "coded-part", coding, gzip.compress(BODY), query) == 501
    assert b"<Part>" not in mp.list_parts(wire, BUCKET, "coded-part", upload).body


@pytest.mark.parametrize("coding", ["chunked", "Chunked", "CHUNKED"])
def test_chunked_in_any_case_is_taken(ref: RefProcess, wire: WireClient, coding: str) -> None:
    assert _put(ref, f"plain-{coding}", coding, BODY) == 200
    assert wire.get_object(BUCKET, f"plain-{coding}").body == BODY
    upload = mp.start(wire, BUCKET, "part")
    assert _put(ref, "part", coding, BODY, [("partNumber", "1"), ("uploadId", upload)]) == 200
