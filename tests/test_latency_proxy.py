"""bench/latency_proxy.py: the round trip it adds (±20%), byte order, no throughput cap."""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from bench.latency_proxy import LatencyProxy, ProxyThread

RTT = 0.2


def _echo_server() -> tuple[socket.socket, int]:
    """A blocking echo server on loopback (a thread per connection)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener, int(listener.getsockname()[1])


@pytest.fixture
def echo() -> Iterator[int]:
    listener, port = _echo_server()
    yield port
    listener.close()


@pytest.fixture
def proxies() -> Iterator[ProxyThread]:
    thread = ProxyThread()
    yield thread
    thread.close()


def _ping_times(port: int, count: int = 7) -> list[float]:
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        times = []
        for _ in range(count):
            t0 = time.perf_counter()
            conn.sendall(b"ping")
            assert conn.recv(16) == b"ping"
            times.append(time.perf_counter() - t0)
        return times


def _least(measure: Callable[[], float], upper: float, deadline_s: float = 30.0) -> float:
    """The least of repeated measurements, taken until one is within `upper` or the deadline.

    A busy machine only adds time (a late wake-up of the proxy's timer or of this thread), so
    the least sample is the proxy's own delay; a proxy that adds too much stays above `upper`
    in every sample, and one that adds too little is below the lower bound in the least one.
    """
    least = measure()
    stop = time.monotonic() + deadline_s
    while least > upper and time.monotonic() < stop:
        least = min(least, measure())
    return least


def _new_connection_echo(port: int) -> float:
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(b"x")
        assert conn.recv(1) == b"x"
    return time.perf_counter() - t0


def test_adds_the_round_trip_it_was_given(echo: int, proxies: ProxyThread) -> None:
    direct = min(_ping_times(echo))
    port = proxies.add("127.0.0.1", echo, RTT)
    added = _least(lambda: min(_ping_times(port)), direct + RTT * 1.2) - direct
    assert RTT * 0.8 <= added <= RTT * 1.2, f"added {added * 1000:.0f} ms for {RTT * 1000:.0f}"


def test_a_new_connection_costs_a_handshake_round_trip_more(
    echo: int, proxies: ProxyThread
) -> None:
    port = proxies.add("127.0.0.1", echo, RTT)
    upper = 2 * RTT * 1.2 + 0.05
    elapsed = _least(lambda: _new_connection_echo(port), upper)
    assert 2 * RTT * 0.8 <= elapsed <= upper, f"{elapsed * 1000:.0f} ms for two round trips"


def test_bytes_keep_their_order_and_throughput_is_not_capped(
    echo: int, proxies: ProxyThread
) -> None:
    """16 MiB in 64 KiB chunks: serial per-chunk delays would take 256 x RTT/2 = 25 s."""
    port = proxies.add("127.0.0.1", echo, RTT)
    payload = os.urandom(16 << 20)
    got = hashlib.sha256()
    received = 0
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as conn:
        sender = threading.Thread(target=conn.sendall, args=(payload,))
        sender.start()
        while received < len(payload):
            data = conn.recv(1 << 20)
            assert data, "connection closed early"
            got.update(data)
            received += len(data)
        sender.join()
    assert got.hexdigest() == hashlib.sha256(payload).hexdigest()
    assert time.perf_counter() - t0 < 10 * RTT + 3.0


def test_eof_travels_through(echo: int, proxies: ProxyThread) -> None:
    port = proxies.add("127.0.0.1", echo, 0.02)
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(b"bye")
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(16):
            data += chunk
    assert data == b"bye"  # the server saw our EOF, echoed, closed; we saw its EOF


@pytest.mark.parametrize("where", ["listen", "target"])
def test_refuses_anything_but_loopback(where: str) -> None:
    proxy = (LatencyProxy("10.0.0.1", 80, 0.05) if where == "target"
             else LatencyProxy("127.0.0.1", 80, 0.05, listen_host="0.0.0.0"))  # fmt: skip
    with pytest.raises(ValueError, match="loopback"):
        asyncio.run(proxy.start())
