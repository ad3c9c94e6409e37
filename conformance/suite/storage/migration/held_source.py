"""A loopback TCP relay in front of a migration source that can hold one answer half sent.

Why: a race between a migration fetch and a write of the same key is only deterministic when the
fetch is known to be under way and not yet finished. The relay forwards bytes both ways
unchanged (SigV4 signatures stay valid: the target signs for the relay's host, and the source
sees that host), and when armed it stops the first answer that grows past `hold_after` bytes
until `release()`: the target has then started reading the object and cannot have finished.
Only usable when the target reaches this machine's loopback, i.e. when the source itself is a
loopback server (`loopback_endpoint`).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "::1", "localhost")
PIECE = 16 * 1024
HOLD_LIMIT_S = 120.0  # a forgotten release never hangs a relay thread for good


def loopback_endpoint(source: dict[str, object]) -> tuple[str, int] | None:
    """(host, port) of a source served on loopback, else None (the relay cannot stand in)."""
    endpoint = str(source.get("endpoint") or "")
    parts = urlsplit(endpoint)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK:
        return None
    return str(parts.hostname), parts.port or 80


class HeldRelay:
    """Relays 127.0.0.1:<port> to the source; `arm()` holds the next large answer."""

    def __init__(self, upstream: tuple[str, int], hold_after: int) -> None:
        self.upstream, self.hold_after = upstream, hold_after
        self.held = threading.Event()  # set once an answer is being held
        self._released = threading.Event()
        self._armed = False
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def arm(self) -> None:
        with self._lock:
            self._armed, self.held = True, threading.Event()
            self._released = threading.Event()

    def release(self) -> None:
        self._released.set()

    def close(self) -> None:
        self.release()
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=30)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            self._sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _take_hold(self, sent: int) -> bool:
        with self._lock:
            if self._armed and sent >= self.hold_after:
                self._armed = False
                return True
            return False

    def _pump(self, src: socket.socket, dst: socket.socket, answers: bool) -> None:
        sent = 0
        try:
            while data := src.recv(PIECE):
                dst.sendall(data)
                sent += len(data)
                if answers and self._take_hold(sent):
                    released = self._released
                    self.held.set()
                    released.wait(HOLD_LIMIT_S)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def held_relay(upstream: tuple[str, int], hold_after: int) -> Iterator[HeldRelay]:
    relay = HeldRelay(upstream, hold_after)
    try:
        yield relay
    finally:
        relay.close()
