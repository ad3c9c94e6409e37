"""Requests `requests` cannot send: a head without its body, a chosen Host, a bounded wait.

Some rules are about what a target does before or without a body (411 MissingContentLength,
a size limit refused from the declared length) or about which Host names a bucket
(virtual-hosted addressing, one account's credentials on another account's host). A peer that
waits for a body it will never get must not hang the run: every call here has a short read
timeout and reports a timeout as `None` (the caller decides whether silence breaks its rule);
an interim `100 Continue` is reported as a reply of status 100.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from conformance.clients.evidence import Exchange, collector
from conformance.clients.hand_http import broken_answer, hand_connection, host_header
from conformance.clients.s3_wire import PreparedWire, Query, WireClient, WireReply

SHORT_READ_TIMEOUT = 5.0
FIRST_ANSWER_WAIT = 60.0  # a pipelined write's first answer: the store may be slow
LOCAL_STORAGE_HOST = "localhost"


def account_host(surface: Mapping[str, Any]) -> str | None:
    """`{account_id}.{storage_host}`, the host of the account's buckets, if the target says.

    A target declares it as `virtual_host`; without it, a target that names its `account_id`
    gets `{account_id}.localhost`, which a loopback endpoint can be sent as Host (the reference
    reads the account from the Host labels). None: the target cannot be addressed by host.
    """
    declared = surface.get("virtual_host")
    if declared:
        return str(declared)
    account = surface.get("account_id")
    return f"{account}.{LOCAL_STORAGE_HOST}" if account else None


def _continued(conn: http.client.HTTPConnection) -> bool:
    """Whether the first answer on the connection is an interim 100 Continue (read past it is
    what http.client does silently; a test of a head-only refusal needs to see it)."""
    sock = conn.sock
    if sock is None or isinstance(sock, ssl.SSLSocket):  # TLS sockets cannot peek
        return False
    first = sock.recv(12, socket.MSG_PEEK)
    return first[:9] in (b"HTTP/1.1 ", b"HTTP/1.0 ") and first[9:12] == b"100"


def connection(wire: WireClient, url: str, timeout: float) -> http.client.HTTPConnection:
    """An unopened HTTP(S) connection to `url`'s host, TLS verified as `wire` verifies it, for a
    test that writes a request by hand (http.client, not `requests`)."""
    return hand_connection(url, wire.verify, timeout)


def send_head(
    wire: WireClient,
    method: str,
    bucket: str | None,
    key: str | None,
    *,
    query: Query = (),
    headers: Mapping[str, str] | None = None,
    drop: Iterable[str] = (),
    timeout: float = SHORT_READ_TIMEOUT,
) -> WireReply | None:
    """Sign a request (UNSIGNED-PAYLOAD), send only its head minus `drop`, read the answer.

    No body byte is ever sent. Returns None when the target has not answered within
    `timeout` seconds (it is waiting for a body), which the caller turns into a FAIL.
    """
    prepared = wire.prepare(
        method, bucket, key, query=query, headers=headers, payload_hash="UNSIGNED-PAYLOAD"
    )
    dropped = {name.lower() for name in drop}
    sent = {k: v for k, v in prepared.headers.items() if k.lower() not in dropped}
    parts = urlsplit(prepared.url)
    conn = connection(wire, prepared.url, timeout)
    try:
        conn.putrequest(
            method,
            parts.path + (f"?{parts.query}" if parts.query else ""),
            skip_host=True,
            skip_accept_encoding=True,
        )
        for name, value in sent.items():
            conn.putheader(name, value)
        if "host" not in {name.lower() for name in sent}:
            conn.putheader("Host", host_header(prepared.url))
        conn.endheaders()
        if _continued(conn):
            # the target asked for the body (100 Continue) instead of answering from the head
            collector.add(Exchange.build(method, prepared.url, 100, sent, {}, "100 Continue"))
            return WireReply(method, prepared.url, 100, {}, b"")
        response = conn.getresponse()
        body = response.read()
    except TimeoutError:
        collector.add(
            Exchange.build(method, prepared.url, None, sent, {}, f"no answer in {timeout} s")
        )
        return None
    except (http.client.HTTPException, ConnectionError) as exc:
        collector.add(broken_answer(method, prepared.url, sent, exc))
        raise
    finally:
        conn.close()
    answer = dict(response.getheaders())
    collector.add(Exchange.build(method, prepared.url, response.status, sent, answer, body))
    return WireReply(method, prepared.url, response.status, answer, body)


def send_header_lines(
    wire: WireClient,
    prepared: PreparedWire,
    header: str,
    lines: list[str],
    timeout: float = SHORT_READ_TIMEOUT,
) -> WireReply:
    """Send `prepared` with `header` as one field line per item of `lines` (`requests` sends
    one line per name); the other headers as prepared, Host added when it names none."""
    parts = urlsplit(prepared.url)
    conn = connection(wire, prepared.url, timeout)
    sent = [(k, v) for k, v in prepared.headers.items() if k.lower() != header.lower()]
    sent += [(header, line) for line in lines]
    try:
        conn.putrequest(prepared.method, parts.path + (f"?{parts.query}" if parts.query else ""),
                        skip_host=True, skip_accept_encoding=True)  # fmt: skip
        for name, value in sent:
            conn.putheader(name, value)
        if "host" not in {name.lower() for name, _ in sent}:
            conn.putheader("Host", host_header(prepared.url))
        conn.endheaders()
        response = conn.getresponse()
        body = response.read()
    except (http.client.HTTPException, ConnectionError) as exc:
        collector.add(broken_answer(prepared.method, prepared.url, dict(sent), exc))
        raise
    finally:
        conn.close()
    answer = dict(response.getheaders())
    collector.add(
        Exchange.build(prepared.method, prepared.url, response.status, dict(sent), answer, body)
    )
    return WireReply(prepared.method, prepared.url, response.status, answer, body)


def send_pipelined(
    wire: WireClient, prepared: PreparedWire, after: bytes, first_wait: float = FIRST_ANSWER_WAIT
) -> list[WireReply]:
    """Write `prepared` (its head and body, with Content-Length and Host) and `after` in one
    write on a fresh connection, then read the final answers in turn: up to `first_wait`
    seconds for the first (a slow store), then until the target closes, goes quiet for
    SHORT_READ_TIMEOUT seconds, or has answered twice. No HTTP library pipelines, so this does."""
    parts = urlsplit(prepared.url)
    if not isinstance(prepared.body, bytes):
        raise TypeError("a pipelined request's body is bytes")
    body = prepared.body
    headers = dict(prepared.headers)
    names = {name.lower() for name in headers}
    if "content-length" not in names:
        headers["Content-Length"] = str(len(body))
    if "host" not in names:
        headers["Host"] = host_header(prepared.url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    head = f"{prepared.method} {target} HTTP/1.1\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    answers = _exchange(wire, prepared.url, head.encode("latin-1") + body + after, first_wait, 2)
    shown = f"{len(answers)} answer(s) to the request and {len(after)} bytes after it"
    for reply in answers or [WireReply(prepared.method, prepared.url, 0, {}, b"")]:
        collector.add(
            Exchange.build(prepared.method, prepared.url, reply.status or None, headers,
                           reply.headers, reply.body or shown, body)
        )  # fmt: skip
    return answers


def send_raw(wire: WireClient, url: str, data: bytes) -> list[WireReply]:
    """Write `data` as it is on a fresh connection to `url`'s host; the answer, if any (read
    as send_pipelined reads its first)."""
    answers = _exchange(wire, url, data, SHORT_READ_TIMEOUT, 1)
    shown = f"{len(data)} bytes written as they are: {data[:80]!r}"
    for reply in answers or [WireReply("RAW", url, 0, {}, b"")]:
        collector.add(
            Exchange.build("RAW", url, reply.status or None, {}, reply.headers,
                           reply.body or "no answer", shown)
        )  # fmt: skip
    return answers


def _exchange(wire: WireClient, url: str, data: bytes, wait: float, limit: int) -> list[WireReply]:
    conn = connection(wire, url, wait)
    try:
        conn.connect()
        assert conn.sock is not None
        conn.sock.sendall(data)
        return read_answers(conn.sock, "RAW", url, limit)
    finally:
        conn.close()


def read_answers(sock: socket.socket, method: str, url: str, limit: int) -> list[WireReply]:
    """Up to `limit` final answers read in turn from one connection (Content-Length or chunked
    bodies; interim 1xx answers skipped, RFC 9110 15.2); the first waits as long as the
    socket's timeout, later ones SHORT_READ_TIMEOUT. Stops at a close, a quiet connection or
    an answer it cannot read: what was read stands."""
    stream = sock.makefile("rb")
    answers: list[WireReply] = []
    try:
        while len(answers) < limit:
            line = stream.readline(65537)
            if not line:
                break
            status = int(line.split(b" ", 2)[1])
            fields = http.client.parse_headers(stream)
            if 100 <= status < 200:
                continue
            if fields.get("Transfer-Encoding", "").lower().endswith("chunked"):
                data = _chunked(stream)
            else:
                data = stream.read(int(fields.get("Content-Length") or 0))
            answers.append(WireReply(method, url, status, dict(fields.items()), data))
            if fields.get("Connection", "").lower() == "close":
                break
            sock.settimeout(SHORT_READ_TIMEOUT)
    except (OSError, ValueError, IndexError, http.client.HTTPException):
        pass
    return answers


def _chunked(stream: Any) -> bytes:
    data = b""
    while size := int(stream.readline(1024).split(b";")[0].strip() or b"0", 16):
        data += stream.read(size)
        stream.readline(3)
    while stream.readline(65537).strip():  # trailer fields
        pass
    return data
