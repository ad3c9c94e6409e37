"""Slow-body floods for the bounded-work tests: many connections that declare a body, send
most of it and fall silent, the way a stalled or hostile client holds a server's memory.

Each connection sends without blocking the caller for long (a server that stops reading is
allowed: the unsent rest stays with the client), then only watches whether the server closes it.
"""

from __future__ import annotations

import contextlib
import socket
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import requests
from reliability.rawhttp import connect


@dataclass
class Flood:
    """The open connections of one flood and how much of each body went out."""

    socks: list[socket.socket] = field(default_factory=list)
    sent: int = 0

    def still_open(self) -> int:
        """Connections the server has not closed (non-blocking peek at each)."""
        count = 0
        for sock in self.socks:
            sock.setblocking(False)
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                count += 1  # nothing to read and not closed
                continue
            except OSError:
                continue
            if data:  # an answer (408) arrived: closed right after, or about to be
                with contextlib.suppress(OSError):
                    while sock.recv(65536):
                        pass
                continue
        return count

    def close(self) -> None:
        for sock in self.socks:
            with contextlib.suppress(OSError):
                sock.close()
        self.socks.clear()


def start_flood(
    url: str, head_for: Callable[[int], bytes], count: int, body_bytes: int, send_s: float = 1.0
) -> Flood:
    """Open `count` connections; on each send `head_for(i)` and up to `body_bytes` of body,
    waiting at most `send_s` per connection for the server to take them."""
    flood = Flood()
    chunk = b"x" * 65536
    for i in range(count):
        sock = connect(url, timeout=5)
        flood.socks.append(sock)
        sock.sendall(head_for(i))
        deadline = time.monotonic() + send_s
        left = body_bytes
        while left > 0 and time.monotonic() < deadline:
            sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                n = sock.send(chunk[: min(left, len(chunk))])
            except (TimeoutError, BlockingIOError):
                break
            except OSError:
                break
            left -= n
            flood.sent += n
    return flood


def rpc_latencies(url: str, rounds: int, pause: float = 0.05) -> list[float]:
    """Seconds each of `rounds` eth_chainId calls took (each on a new connection)."""
    took = []
    for i in range(rounds):
        asked = time.monotonic()
        reply = requests.post(
            url,
            json={"jsonrpc": "2.0", "id": i, "method": "eth_chainId", "params": []},
            timeout=(5, 10),
        )
        took.append(time.monotonic() - asked)
        assert reply.status_code == 200, reply.text[:200]
        time.sleep(pause)
    return took


def median(values: list[float]) -> float:
    return statistics.median(values)
