"""The JSON-RPC gateway refuses a transfer coding it does not apply: 501 (hostile round 8).

uvicorn's httptools parser takes the chunked framing off a body sent `Transfer-Encoding: gzip,
chunked` and hands the app the still-gzipped bytes with the header intact (checked over a raw
socket: the app saw the header and the bytes as sent): the gateway answered 200 with a parse
error for a gzipped body, and ran a plain body as if it had been decoded. RFC 9112 section 6.1:
a server that receives a transfer coding it does not understand SHOULD answer 501; the S3
listener already did (`Call.chunked`), both now read the codings with `transfer_codings.py`.
"""

from __future__ import annotations

import gzip
import json
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import pytest
from helpers.gateway_calls import CALL, SEPOLIA
from reliability.rawhttp import read_until_closed, statuses


def _chunked_post(url: str, codings: list[str], body: bytes) -> tuple[int, Any]:
    """POST /v1/sepolia with the body chunked, one Transfer-Encoding line per entry."""
    parts = urlsplit(url)
    lines = ["POST /v1/sepolia HTTP/1.1", f"Host: {parts.netloc}",
             "Content-Type: application/json", "Connection: close"]  # fmt: skip
    lines += [f"Transfer-Encoding: {coding}" for coding in codings]
    framed = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 10)
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + framed)
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    codes = statuses(raw)
    assert len(codes) == 1, raw[:300]
    payload = raw.partition(b"\r\n\r\n")[2]
    return codes[0], json.loads(payload) if payload.startswith(b"{") else payload


@pytest.mark.parametrize("codings", [["chunked"], ["Chunked"], ["CHUNKED"]], ids=str)
def test_chunked_alone_is_read(gateway_url: str, codings: list[str]) -> None:
    status, doc = _chunked_post(gateway_url, codings, json.dumps(CALL).encode())
    assert (status, doc["result"]) == (200, SEPOLIA), doc


@pytest.mark.parametrize(
    ("codings", "gzipped"),
    [(["gzip, chunked"], True), (["gzip, chunked"], False), (["gzip,chunked"], False),
     (["GZIP, Chunked"], True), (["deflate, chunked"], False), (["x-custom, chunked"], False),
     (["gzip", "chunked"], True)],
    ids=str,
)  # fmt: skip
def test_other_codings_are_501(gateway_url: str, codings: list[str], gzipped: bool) -> None:
    """Never run: the body is neither decoded nor taken as plain JSON; 501 with an error
    object (every non-204 answer of the gateway carries one)."""
    body = json.dumps(CALL).encode()
    status, doc = _chunked_post(gateway_url, codings, gzip.compress(body) if gzipped else body)
    assert status == 501, doc
    assert doc["jsonrpc"] == "2.0" and "result" not in doc, doc
    assert doc["error"]["code"] == -32600 and "Transfer-Encoding" in doc["error"]["message"]
