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
