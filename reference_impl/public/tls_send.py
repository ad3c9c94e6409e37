"""A send timeout for every connection of the TLS public listener (hypercorn), HTTP/1.1 too.

hypercorn writes each piece of a reply with `writer.write(); await writer.drain()` and has no
send timeout: `drain()` waits for ever on a client that stopped reading. On HTTP/1.1 over TLS
the app then waited in its `send` for ever, holding the connection and its slot of
`max_connections` (`h2_limit.InFlightLimit`): three clients that read a download's first bytes
and stopped shut every other client of a 3-slot listener out with 503, anonymously (hostile
round 6). On HTTP/2 a client that opened its flow-control windows and then stopped reading the
socket left hypercorn's sender stuck the same way (`h2_buffer` only ended the app).

Here a connection whose client took nothing for `send_idle_timeout_s` is aborted, as the
uvicorn listeners do (`guarded_http.py`): the timeout is about progress, like nginx's
send_timeout, so a client that keeps taking bytes, however slowly, keeps its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import struct
import termios
from typing import Any

from hypercorn.asyncio import run as hypercorn_run
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.events import Closed, RawData

LOG = logging.getLogger(__name__)
# what `protocol_send` below relies on: set by hypercorn's TCPServer.__init__ / run (0.18)
ATTRIBUTES = ("writer", "send_lock", "protocol", "context")


class SendStalledConnection(ConnectionError):
    """The client took nothing of the connection's pending bytes for the send timeout."""


def unsent(writer: Any) -> int:
    """Bytes written but not yet taken by the client: the transport's buffers (the TLS layer's
    included) and, where the kernel tells (Linux SIOCOUTQ), the socket's send queue."""
    pending = 0
    with contextlib.suppress(AttributeError, RuntimeError):
        pending = int(writer.transport.get_write_buffer_size())
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            raw = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, struct.pack("i", 0))
            pending += struct.unpack("i", raw)[0]
    return pending


async def drain_or_abort(writer: Any, timeout: float | None) -> None:
    """`writer.drain()`, but a client that took no byte during `timeout` seconds gets its
    connection aborted (`close()` would wait for it to take the buffered bytes) and
    SendStalledConnection raised; each timeout that saw the pending bytes shrink starts
    another one."""
    if timeout is None:
        await writer.drain()
        return
    drain = asyncio.ensure_future(writer.drain())
    try:
        pending = unsent(writer)
        while True:
            done, _ = await asyncio.wait({drain}, timeout=timeout)
            if done:
                drain.result()
                return
            now = unsent(writer)
            if now >= pending:
                writer.transport.abort()
                raise SendStalledConnection(f"no byte taken for {timeout} s")
            pending = now
    finally:  # never leave the drain running, nor its exception unretrieved (logged)
        if not drain.done():
            drain.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await drain


class SendTimedTCPServer(TCPServer):
    """hypercorn's connection, whose writes give up on a client that takes nothing, and whose
    own failure ends it alone."""

    send_timeout: float | None = None  # set by install()

    async def run(self) -> None:
        """hypercorn's connection task; an error of hypercorn's inside it (a client's frames
        it did not expect, `h2_events.py`) ends this connection with one log line. Uncaught,
        it was logged with a traceback per connection, and hypercorn re-raised it at shutdown,
        which made the reference exit 1. Cancelled at shutdown, it ends quietly too."""
        try:
            await super().run()
        except Exception as exc:  # an ExceptionGroup from the connection's task group
            LOG.warning("TLS connection ended by a hypercorn error: %s", _describe(exc))
        except asyncio.CancelledError:
            # hypercorn cancels connections still open once its graceful_timeout is over; on
            # Python 3.11 asyncio's stream callback then calls task.exception() on the
            # cancelled task, which raises, and the loop logs a traceback per connection.
            # This is the task's outermost frame: it ends here, closed, either way.
            return

    async def _close(self) -> None:
        """At shutdown the connection is aborted: a TLS close waits for the client's
        close_notify (up to 30 s, the loop's ssl_shutdown_timeout), and the listener's server
        waits for every connection, so one idle client held a SIGTERM for 30 s."""
        if self.context.terminated.is_set():
            with contextlib.suppress(AttributeError, RuntimeError):
                self.writer.transport.abort()
        await super()._close()

    async def protocol_send(self, event: Any) -> None:
        if not isinstance(event, RawData):
            await super().protocol_send(event)
            return
        async with self.send_lock:
            try:
                self.writer.write(event.data)
                await drain_or_abort(self.writer, self.send_timeout)
            except (ConnectionError, RuntimeError):  # SendStalledConnection included
                await self.protocol.handle(Closed())


def _describe(exc: BaseException) -> str:
    """The innermost errors of an exception group, by type and message, on one line."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


class IncompatibleHypercorn(RuntimeError):
    """The installed hypercorn is not one this send timeout was written against."""


def problems(run_module: Any = hypercorn_run) -> list[str]:
    """Why the send timeout would not apply (empty when it does): `serve` no longer builds its
    connections from `hypercorn.asyncio.run.TCPServer`, or that class lost what we override."""
    found = []
    server = getattr(run_module, "TCPServer", None)
    if not isinstance(server, type) or not issubclass(server, TCPServer):
        found.append("hypercorn.asyncio.run.TCPServer is gone")
    elif not callable(getattr(server, "protocol_send", None)):
        found.append("TCPServer.protocol_send is gone")
    assigned: set[str] = set()
    for method in ("__init__", "run"):
        code = getattr(getattr(TCPServer, method, None), "__code__", None)
        assigned |= set(code.co_names) if code is not None else set()
    missing = [name for name in ATTRIBUTES if name not in assigned]
    if missing:
        found.append(f"TCPServer no longer sets {', '.join(missing)}")
    return found


def install(timeout: float | None, run_module: Any = hypercorn_run) -> None:
    """Make hypercorn's asyncio `serve` build send-timed connections (idempotent). Raises
    IncompatibleHypercorn, at the TLS listener's start, rather than serve untimed."""
    found = problems(run_module)
    if found:
        raise IncompatibleHypercorn(
            "the send timeout (reference_impl/public/tls_send.py) cannot apply: " + "; ".join(found)
        )
    SendTimedTCPServer.send_timeout = timeout
    run_module.TCPServer = SendTimedTCPServer
