"""HTTP/2 events that ended a whole connection of the TLS public listener (hypercorn 0.18).

Request body bytes that arrive after the reply:
The public listener answers a PUT (405: it is read-only) without reading its body, and
hypercorn then forgets the stream. The client may still send DATA on it (its side of the stream
is still open: RFC 9113 section 8.1 lets a server answer early; the client just wastes bytes).
hypercorn 0.18 looked the stream up without a guard (`self.streams[stream_id]`): a KeyError
ended the whole connection, with every other stream on it, logged a traceback per connection
("Unhandled exception in client_connected_cb") for any anonymous client, and made the
reference exit 1 at its next shutdown (hypercorn re-raised it from the connection's task).
A CONNECT request (no `:path`, RFC 9113 section 8.5) did the same with an UnboundLocalError.

Over TLS HTTP/2 comes by ALPN only (RFC 9113 section 3.2); hypercorn's HTTP/1.1 also switched
on `Upgrade: h2c` (101) and on the HTTP/2 preface, so HTTP/2 was served with ALPN `http/1.1`,
also before `public_http2`'s date, when ALPN does not offer `h2` at all.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import h2.config
import h2.connection
import h2.events
import pytest
from reliability.offload_probe import public_domain
from reliability.refproc import RefProcess, assert_no_traceback, start

BUCKET = "h2-late-body"
LOG = "reference.stderr"


@pytest.fixture
def ref(tmp_path: Path) -> Iterator[RefProcess]:
    proc = start(tmp_path / "data", log=tmp_path / LOG)
    yield proc
    proc.stop()


def _connect(ref: RefProcess, domain: str) -> tuple[ssl.SSLSocket, h2.connection.H2Connection]:
    sock = ref.public_tls_socket(domain, ["h2"])
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    return sock, conn


def _stops_cleanly(ref: RefProcess, tmp_path: Path) -> None:
    """The connection's trouble stayed its own: the reference exits 0, its log holds no
    traceback."""
    ref.stop()
    assert ref.process.returncode == 0, f"the reference exited {ref.process.returncode}"
    assert_no_traceback(tmp_path / LOG)


def _until(sock: ssl.SSLSocket, conn: h2.connection.H2Connection, stream: int) -> dict[str, str]:
    """Read until `stream` ended; its response headers ({} when the connection closed)."""
    headers: dict[str, str] = {}
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except (TimeoutError, ssl.SSLError, OSError):
            return {}
        if not data:
            return {}
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                headers = {k.decode(): v.decode() for k, v in event.headers}
            if isinstance(event, h2.events.DataReceived):
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                sock.sendall(conn.data_to_send())
                return headers
        sock.sendall(conn.data_to_send())
    return {}


@contextlib.contextmanager
def _h2_to_small(
    ref: RefProcess,
) -> Iterator[tuple[ssl.SSLSocket, h2.connection.H2Connection, str]]:
    """An h2 connection to the public domain of a bucket holding `small`; closed after."""
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "small", body=b"small object").status == 200
    domain = public_domain(ref, BUCKET)
    sock, conn = _connect(ref, domain)
    try:
        yield sock, conn, domain
    finally:
        with contextlib.suppress(OSError):
            sock.close()


def _get_small(sock: ssl.SSLSocket, conn: h2.connection.H2Connection, domain: str) -> str:
    """The status of a GET of `small` on a new stream of the same connection."""
    get = conn.get_next_available_stream_id()
    conn.send_headers(get, [(":method", "GET"), (":path", "/small"), (":scheme", "https"),
                            (":authority", domain)], end_stream=True)  # fmt: skip
    sock.sendall(conn.data_to_send())
    return _until(sock, conn, get).get(":status", "")


def test_body_after_the_reply_keeps_the_connection(ref: RefProcess, tmp_path: Path) -> None:
    with _h2_to_small(ref) as (sock, conn, domain):
        put = conn.get_next_available_stream_id()
        conn.send_headers(put, [(":method", "PUT"), (":path", "/small"), (":scheme", "https"),
                                (":authority", domain)])  # fmt: skip
        conn.send_data(put, b"x" * 1000)
        sock.sendall(conn.data_to_send())
        answered = _until(sock, conn, put)
        assert answered.get(":status", "").startswith("4"), answered
        conn.send_data(put, b"y" * 1000)  # the client's side is still open: legal, wasted
        assert _get_small(sock, conn, domain) == "200", "late body bytes ended the connection"
    _stops_cleanly(ref, tmp_path)


def test_connect_is_refused_and_the_connection_goes_on(ref: RefProcess, tmp_path: Path) -> None:
    with _h2_to_small(ref) as (sock, conn, domain):
        connect = conn.get_next_available_stream_id()
        conn.send_headers(connect, [(":method", "CONNECT"), (":authority", domain)])
        assert _get_small(sock, conn, domain) == "200", "a CONNECT request ended the connection"
    _stops_cleanly(ref, tmp_path)


UPGRADES = {
    "h2c-upgrade": "GET /small HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade, HTTP2-Settings"
    "\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
    "preface": "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
}


@pytest.mark.parametrize("name", sorted(UPGRADES))
def test_http1_over_tls_never_becomes_http2(ref: RefProcess, name: str) -> None:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    domain = public_domain(ref, BUCKET)
    tls = ref.surface("public_tls")
    parts = urlsplit(tls["url"])
    context = ssl.create_default_context(cafile=tls["verify"])
    context.check_hostname = False
    context.set_alpn_protocols(["http/1.1"])
    raw = socket.create_connection((parts.hostname, parts.port), timeout=10)
    sock = context.wrap_socket(raw, server_hostname=domain)
    try:
        sock.sendall(UPGRADES[name].format(host=domain).encode())
        head = sock.recv(4096)
    finally:
        sock.close()
    assert head.startswith(b"HTTP/1.1 "), f"{name}: not an HTTP/1.1 answer: {head[:40]!r}"
    assert not head.startswith(b"HTTP/1.1 101"), f"{name}: switched to HTTP/2 over TLS"
