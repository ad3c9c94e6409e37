"""A TCP proxy that adds round-trip latency, for running the suite against a "far" target.

These machines' kernel has no netem qdisc, so latency is injected in user space: every chunk
read from one side is released to the other side at its arrival time + RTT/2 (each direction
gets half the round trip). Chunks of one direction leave in the order they came, and reading
never waits for the delay, so the proxy adds latency without capping throughput (a chunk that
arrives while an earlier one waits is scheduled at its own arrival time + RTT/2, not after it).
Half-close (EOF) travels with the same delay; a reset closes both sides.

Loopback only: it listens on and forwards to 127.0.0.0/8 addresses and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

CHUNK = 64 * 1024
# bounded so a stalled reader cannot make the proxy buffer without end (64 MiB per direction)
QUEUE_CHUNKS = 1024


def _loopback(host: str) -> str:
    if host == "localhost" or ipaddress.ip_address(host).is_loopback:
        return host
    raise ValueError(f"{host!r} is not a loopback address: the proxy stays on 127.0.0.0/8")


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    """Copy reader -> writer, each chunk released at its arrival time + delay, in order."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue(QUEUE_CHUNKS)

    async def read() -> None:
        try:
            while chunk := await reader.read(CHUNK):
                await queue.put((loop.time() + delay, chunk))
        except (ConnectionError, OSError):
            pass
        await queue.put((loop.time() + delay, b""))  # EOF (or reset) after the same delay

    async def write() -> None:
        while True:
            due, chunk = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not chunk:
                with contextlib.suppress(OSError, RuntimeError):
                    if writer.can_write_eof():
                        writer.write_eof()
                return
            writer.write(chunk)
            await writer.drain()

    reading = asyncio.ensure_future(read())
    try:
        await write()
    finally:
        reading.cancel()


@dataclass
class LatencyProxy:
    """One listener: 127.0.0.1:<port> -> target_host:target_port with `rtt` seconds added."""

    target_host: str
    target_port: int
    rtt: float
    listen_host: str = "127.0.0.1"
    listen_port: int = 0
    _server: asyncio.Server | None = field(default=None, repr=False)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set, repr=False)

    async def start(self) -> int:
        _loopback(self.listen_host)
        _loopback(self.target_host)
        self._server = await asyncio.start_server(
            self._handle, self.listen_host, self.listen_port, backlog=1024
        )
        self.listen_port = int(self._server.sockets[0].getsockname()[1])
        return self.listen_port

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        half = self.rtt / 2
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            # the TCP handshake to a far server costs one round trip too
            await asyncio.sleep(self.rtt)
            server_r, server_w = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            client_w.close()
            return
        try:
            await asyncio.gather(_pump(client_r, server_w, half), _pump(server_r, client_w, half))
        except (ConnectionError, OSError):
            pass
        finally:
            for w in (server_w, client_w):
                w.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()


class ProxyThread:
    """Proxies run on an event loop in a background thread, for scripts and tests."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.proxies: list[LatencyProxy] = []

    def add(self, host: str, port: int, rtt: float) -> int:
        """Start a proxy to host:port; returns the loopback port it listens on."""
        proxy = LatencyProxy(host, port, rtt)
        listen = asyncio.run_coroutine_threadsafe(proxy.start(), self.loop).result(10)
        self.proxies.append(proxy)
        return listen

    def close(self) -> None:
        async def stop(proxies: Iterable[LatencyProxy]) -> None:
            for proxy in proxies:
                await proxy.close()

        asyncio.run_coroutine_threadsafe(stop(self.proxies), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
