"""HTTP/2 clients that never read cost bounded memory (issue 26, fresh adversarial pass).

On the TLS public listener hypercorn resumed a paused app whenever its sender popped less than
a frame, also when the client's flow-control window was closed and it popped nothing: every
stream then buffered its whole object. Ten anonymous connections of 100 streams on a 4 MiB
public object took the reference from 95 MiB to 3.4 GiB. Now a stream holds about two chunks of
its reply and a connection at most `h2_max_concurrent_streams` (16) streams.

`h2` is hypercorn's own dependency (the listener speaks it), so it is always installed.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable

import h2.config
import h2.connection
import h2.events
import pytest
from reliability.offload_probe import MIB, public_domain, rss_mib
from reliability.refproc import RefProcess

pytestmark = pytest.mark.slow
BUCKET = "h2-backpressure"
OBJECT = 4 * MIB
CONNECTIONS, STREAMS = 3, 50  # on main: 150 streams buffering 4 MiB each


def _open(
    ref: RefProcess, domain: str, streams: int = STREAMS
) -> tuple[socket.socket, h2.connection.H2Connection]:
    """One h2 connection asking for the object on `streams` streams; it never reads a byte of
    DATA, so its flow-control windows stay at the initial 64 KiB."""
    sock = ref.public_tls_socket(domain, ["h2"])
    assert sock.selected_alpn_protocol() == "h2"
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    for _ in range(streams):
        headers = [(":method", "GET"), (":path", "/big"), (":scheme", "https"),
                   (":authority", domain)]  # fmt: skip
        conn.send_headers(conn.get_next_available_stream_id(), headers, end_stream=True)
    sock.sendall(conn.data_to_send())
    return sock, conn


def test_streams_that_never_read_hold_little_memory(ref: RefProcess) -> None:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "big", body=b"q" * OBJECT).status == 200
    domain = public_domain(ref, BUCKET)
    idle = rss_mib(ref)
    sockets = [_open(ref, domain)[0] for _ in range(CONNECTIONS)]
    try:
        grown = 0.0
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:  # on main the growth showed within a second or two
            grown = max(grown, rss_mib(ref) - idle)
            time.sleep(0.25)
    finally:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.close()
    assert grown < 100, f"RSS grew {grown:.0f} MiB for {CONNECTIONS} idle h2 connections"
    # the listener still serves a reader
    assert wire.request("GET", BUCKET, "big").status == 200


def _statuses(sock: socket.socket, conn: h2.connection.H2Connection, wanted: int) -> list[int]:
    """The `:status` of the first `wanted` responses (their DATA is never acknowledged)."""
    found: list[int] = []
    sock.settimeout(10)
    deadline = time.monotonic() + 20
    while len(found) < wanted and time.monotonic() < deadline:
        data = sock.recv(65536)
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                found += [int(v) for k, v in event.headers if k in (b":status", ":status")]
        sock.sendall(conn.data_to_send())  # SETTINGS acks only: no WINDOW_UPDATE is sent
    return found


def test_requests_in_flight_are_capped(launch: Callable[..., RefProcess]) -> None:
    """hypercorn has no connection cap: the listener answers 503 past `max_connections`
    requests in flight, as the uvicorn listeners do."""
    ref = launch("--profile", "max_connections=8")
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "big", body=b"q" * OBJECT).status == 200
    domain = public_domain(ref, BUCKET)
    opened = [_open(ref, domain, streams=16) for _ in range(2)]
    try:
        statuses = [s for sock, conn in opened for s in _statuses(sock, conn, 16)]
    finally:
        for sock, _ in opened:
            with contextlib.suppress(OSError):
                sock.close()
    assert len(statuses) == 32, statuses
    assert statuses.count(200) <= 8 and statuses.count(503) >= 24, statuses
