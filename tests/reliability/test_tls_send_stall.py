"""A download over TLS that its client stops reading is dropped after `send_idle_timeout_s`,
and frees its in-flight slot and its connection.

The TLS public listener (hypercorn) writes a reply with `writer.write(); await writer.drain()`
and had no send timeout. On HTTP/1.1 (ALPN `http/1.1`, or no ALPN) a client that stopped
reading mid-body left the app waiting in `drain()` for ever, holding its slot of
`max_connections` (`h2_limit.InFlightLimit`): `max_connections` such clients shut every other
client of the listener out with 503, anonymously. On HTTP/2 a client that opened its
flow-control windows and then stopped reading the socket lost its streams (`h2_buffer`), but
the connection stayed open for good: hypercorn's sender waited in `drain()` holding the send
lock its own close needs (still ESTABLISHED 20 s later with a 2 s keep-alive), one descriptor
per such connection for as long as the reference runs.
"""

from __future__ import annotations

import contextlib
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import h2.config
import h2.connection
import h2.settings
import psutil
import pytest
from reliability.offload_probe import MIB, public_domain
from reliability.refproc import RefProcess, running_clean

pytestmark = pytest.mark.slow
BUCKET = "tls-send-stall"
STALL, SLOTS = 2, 3  # send_idle_timeout_s, max_connections (requests in flight on TLS)


@pytest.fixture
def ref(tmp_path: Path) -> Iterator[RefProcess]:
    yield from running_clean(tmp_path, send_idle_timeout_s=STALL, max_connections=SLOTS)


def _tls(ref: RefProcess, domain: str, alpn: list[str] | None) -> ssl.SSLSocket:
    return ref.public_tls_socket(domain, alpn, rcvbuf=4096)  # fill up fast


def _get(ref: RefProcess, domain: str, alpn: list[str] | None = None) -> ssl.SSLSocket:
    sock = _tls(ref, domain, alpn)
    sock.sendall(f"GET /big HTTP/1.1\r\nHost: {domain}\r\n\r\n".encode())
    return sock


def _status(ref: RefProcess, domain: str) -> int:
    """The status of a fresh HTTP/1.1 GET over TLS that reads its head."""
    sock = _get(ref, domain, ["http/1.1"])
    try:
        head = b""
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            assert chunk, "closed before a status line"
            head += chunk
        return int(head.split(b" ", 2)[1])
    finally:
        sock.close()


@pytest.mark.parametrize("alpn", [["http/1.1"], None], ids=["alpn-http1.1", "no-alpn"])
def test_unread_tls_http1_download_frees_its_slot(ref: RefProcess, alpn: list[str] | None) -> None:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "big", body=b"q" * (8 * MIB)).status == 200
    domain = public_domain(ref, BUCKET)
    stalled = [_get(ref, domain, alpn) for _ in range(SLOTS)]
    try:
        for sock in stalled:  # each reads its head and a little of the body, then stops
            assert sock.recv(1024)
        time.sleep(0.5)
        assert _status(ref, domain) == 503, "the stalled downloads do not hold their slots"
        deadline, status = time.monotonic() + 4 * STALL + 2, 503
        while time.monotonic() < deadline and status == 503:
            time.sleep(0.5)
            status = _status(ref, domain)
        assert status == 200, f"{SLOTS} unread HTTP/1.1 downloads still hold every TLS slot"
    finally:
        for sock in stalled:
            with contextlib.suppress(OSError):
                sock.close()


def test_slow_tls_http1_reader_is_served(ref: RefProcess) -> None:
    """A client that keeps taking bytes, far slower than the reply is written, keeps its
    connection: the timeout is about progress (nginx's send_timeout)."""
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "big", body=b"q" * (8 * MIB)).status == 200
    sock = _get(ref, public_domain(ref, BUCKET), ["http/1.1"])
    got, started = 0, time.monotonic()
    try:
        while time.monotonic() - started < 2 * STALL + 1:
            chunk = sock.recv(8192)
            assert chunk, f"connection closed after {got} bytes taken steadily"
            got += len(chunk)
            time.sleep(0.25)
    finally:
        sock.close()
    assert got > 8192 * 4, f"only {got} bytes in {2 * STALL + 1} s"


def test_h2_client_with_open_windows_that_stops_reading_is_closed(ref: RefProcess) -> None:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "big", body=b"q" * (8 * MIB)).status == 200
    domain = public_domain(ref, BUCKET)
    sock = _tls(ref, domain, ["h2"])
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()  # windows opened wide: flow control never stops the server
    conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 2**31 - 1})
    conn.increment_flow_control_window(2**31 - 1 - 65535)
    for _ in range(2):
        headers = [(":method", "GET"), (":path", "/big"), (":scheme", "https"),
                   (":authority", domain)]  # fmt: skip
        conn.send_headers(conn.get_next_available_stream_id(), headers, end_stream=True)
    sock.sendall(conn.data_to_send())
    port = sock.getsockname()[1]
    server = psutil.Process(int(ref.ready["pid"]))

    def held() -> bool:
        return any(c.raddr and c.raddr.port == port for c in server.net_connections())

    try:
        assert sock.recv(100), "no answer"  # then never reads again
        deadline = time.monotonic() + 4 * STALL + 2
        while time.monotonic() < deadline and held():
            time.sleep(0.25)
        assert not held(), "the server still holds a connection whose client stopped reading"
    finally:
        sock.close()
