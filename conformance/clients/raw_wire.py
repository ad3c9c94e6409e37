"""Requests written to the wire as bytes, in pieces or pipelined, and the answers read back
in turn: what no HTTP library sends (a head split across writes, a request behind another in
one write, bytes that are no request). The S3 tests of storage.http use these."""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from conformance.clients.evidence import Exchange, collector
from conformance.clients.hand_http import host_header
from conformance.clients.s3_raw import SHORT_READ_TIMEOUT, connection
from conformance.clients.s3_wire import PreparedWire, WireClient, WireReply
from conformance.recorded import RAW

FIRST_ANSWER_WAIT = 60.0  # the first answer to a written request: the store may be slow
READ_BUDGET = 150.0  # every answer of one exchange, however slowly they drip in
MAX_INTERIM = 5  # 1xx answers skipped before the exchange is given up
MAX_BODY = 16 * 1024 * 1024  # bytes of one answer's body kept: the rules read small bodies


def request_bytes(
    prepared: PreparedWire, unsigned: Mapping[str, str] | None = None
) -> tuple[bytes, dict[str, str]]:
    """`prepared` as HTTP/1.1 bytes (head and body, with Content-Length and Host), with the
    `unsigned` headers added after signing (hop-by-hop ones a proxy may strip before the
    signature is checked), and the headers it carries."""
    if not isinstance(prepared.body, bytes):
        raise TypeError("a request written as bytes has a bytes body")
    parts = urlsplit(prepared.url)
    headers = {**prepared.headers, **(unsigned or {})}
    names = {name.lower() for name in headers}
    if "content-length" not in names and (prepared.body or prepared.method in ("PUT", "POST")):
        headers["Content-Length"] = str(len(prepared.body))
    if "host" not in names:
        headers["Host"] = host_header(prepared.url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    head = f"{prepared.method} {target} HTTP/1.1\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    return head.encode("latin-1") + prepared.body, headers


def send_pieces(
    wire: WireClient, url: str, pieces: Sequence[bytes], limit: int, pause: float = 0.3
) -> list[WireReply]:
    """Write `pieces` on one fresh connection, `pause` seconds apart, then read up to `limit`
    final answers (read_answers). The evidence names the pieces and what came back."""
    answers = _exchange(wire, url, pieces, pause, FIRST_ANSWER_WAIT, limit, FIRST_ANSWER_WAIT)
    sizes = "+".join(str(len(piece)) for piece in pieces)
    shown = f"{sizes} bytes written in {len(pieces)} piece(s) {pause} s apart: {pieces[0][:60]!r}"
    _record(RAW, url, {}, answers, f"no answer ({len(answers)} read)", shown)
    return answers


def send_pipelined(
    wire: WireClient, prepared: PreparedWire, after: bytes, first_wait: float = FIRST_ANSWER_WAIT
) -> list[WireReply]:
    """Write `prepared` and `after` in one write on a fresh connection, then read the final
    answers in turn: up to `first_wait` seconds for the first (a slow store), then until the
    target closes, goes quiet for SHORT_READ_TIMEOUT seconds, or has answered twice."""
    data, headers = request_bytes(prepared)
    answers = _exchange(wire, prepared.url, [data + after], 0.0, first_wait, 2)
    unanswered = f"{len(answers)} answer(s) to the request and {len(after)} bytes after it"
    shown = f"{prepared.method} with a {len(data)}-byte head and body, {after[:60]!r} after it"
    _record(RAW, prepared.url, headers, answers, unanswered, shown)
    return answers


def send_raw(wire: WireClient, url: str, data: bytes) -> list[WireReply]:
    """Write `data` as it is on a fresh connection to `url`'s host; the answer, if any."""
    answers = _exchange(wire, url, [data], 0.0, SHORT_READ_TIMEOUT, 1)
    shown = f"{len(data)} bytes written as they are: {data[:80]!r}"
    _record(RAW, url, {}, answers, "no answer", shown)
    return answers


def _record(
    method: str,
    url: str,
    sent: Mapping[str, str],
    answers: list[WireReply],
    unanswered: str,
    request_body: bytes | str,
) -> None:
    """The evidence: one exchange per answer read, or one saying none came."""
    for reply in answers or [WireReply(method, url, 0, {}, b"")]:
        collector.add(
            Exchange.build(method, url, reply.status or None, sent, reply.headers,
                           reply.body or unanswered, request_body)
        )  # fmt: skip


def _exchange(
    wire: WireClient,
    url: str,
    pieces: Sequence[bytes],
    pause: float,
    wait: float,
    limit: int,
    then_wait: float = SHORT_READ_TIMEOUT,
) -> list[WireReply]:
    conn = connection(wire, url, wait)
    try:
        conn.connect()
        assert conn.sock is not None
        for index, piece in enumerate(pieces):
            if index:
                time.sleep(pause)
            conn.sock.sendall(piece)
        return read_answers(conn.sock, RAW, url, limit, then_wait)
    finally:
        conn.close()


def read_answers(
    sock: socket.socket, method: str, url: str, limit: int, then_wait: float = SHORT_READ_TIMEOUT
) -> list[WireReply]:
    """Up to `limit` final answers read in turn from one connection; the first waits as long
    as the socket's timeout, later ones `then_wait`, and the whole read at most READ_BUDGET
    seconds and MAX_BODY bytes a body. Interim 1xx answers are skipped (RFC 9110 15.2, at most
    MAX_INTERIM), but a 101 is the answer: the connection speaks another protocol after it. A
    body is read by its Content-Length, chunked, or to the close (RFC 9112 6.3). Stops at a
    close, a quiet connection or an answer it cannot read: what was read stands."""
    stream = sock.makefile("rb")
    answers: list[WireReply] = []
    deadline, interim = time.monotonic() + READ_BUDGET, 0
    try:
        while len(answers) < limit and interim <= MAX_INTERIM and time.monotonic() < deadline:
            line = stream.readline(65537)
            if not line:
                break
            status = int(line.split(b" ", 2)[1])
            fields = http.client.parse_headers(stream)
            if 100 <= status < 200 and status != 101:
                interim += 1
                continue
            closes = "close" in _joined(fields, "Connection")
            data = b"" if status in (101, 204, 304) else _body(stream, fields, deadline)
            answers.append(WireReply(method, url, status, dict(fields.items()), data))
            if closes or status == 101 or not (status in (204, 304) or _framed(fields)):
                break
            sock.settimeout(then_wait)
    except (OSError, ValueError, IndexError, OverflowError, http.client.HTTPException):
        pass
    return answers


def _joined(fields: Any, name: str) -> str:
    """Every line of a field, lowercased, as one list (RFC 9110 5.3)."""
    return ", ".join(fields.get_all(name) or []).lower()


def _framed(fields: Any) -> bool:
    return "Content-Length" in fields or "chunked" in _joined(fields, "Transfer-Encoding")


def _body(stream: Any, fields: Any, deadline: float) -> bytes:
    if "chunked" in _joined(fields, "Transfer-Encoding"):
        return _chunked(stream, deadline)
    if "Content-Length" in fields:
        return _read(stream, int(fields["Content-Length"].split(",")[0].strip()), deadline)
    return _read(stream, MAX_BODY, deadline)  # delimited by the close (RFC 9112 6.3)


def _read(stream: Any, size: int, deadline: float) -> bytes:
    """Up to `size` bytes (never past MAX_BODY), in pieces, until the deadline passes."""
    data = b""
    want = min(max(size, 0), MAX_BODY)
    while len(data) < want and time.monotonic() < deadline:
        piece = stream.read1(min(want - len(data), 65536))
        if not piece:
            break
        data += piece
    return data


def _chunked(stream: Any, deadline: float) -> bytes:
    data = b""
    while size := int(stream.readline(1024).split(b";")[0].strip() or b"0", 16):
        data += _read(stream, min(size, MAX_BODY - len(data)), deadline)
        if len(data) >= MAX_BODY or time.monotonic() >= deadline:
            return data
        stream.readline(3)
    while stream.readline(65537).strip():  # trailer fields
        pass
    return data
