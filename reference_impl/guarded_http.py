"""uvicorn's httptools protocol with the guards it lacks: header size, header time, pipelining.

httptools (llhttp) keeps a half-received header line in memory without any bound, and uvicorn
never times out a request whose header block is still arriving: four connections streaming an
endless header grew the server by hundreds of MB and stalled every other client (issue 16,
row 5). This subclass counts the bytes of each request's request line and header block and
arms a timer from its first byte (from the connection's opening for the first request), like
nginx's large_client_header_buffers and client_header_timeout: past `max_header_bytes` the
request is answered 431, past `header_timeout` 408, and the connection is closed.

uvicorn also answers a parse error at once, ahead of the responses of the requests that were
read complete before it on the same connection: the client saw only a 400 while its PUT was
stored (row 9). Here every request read complete before the bad bytes is answered first, in
order, and the error comes last; a request whose body the bad bytes broke is dropped as a
disconnect, so its handler stores nothing.

Request bodies are bounded the same way (issue 26, HIGH 3; `body_guard.py`): no byte for
`body_idle_timeout`, or a rate below `body_min_rate` once that grace is over (on average, and
over each later window of `body_idle_timeout`: no credit banked by a fast start), is answered
408 and closed; time the server itself kept reading paused (an app busy elsewhere, a body
waiting for a slot) is never counted against the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import struct
import termios
import time
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from reference_impl import date_header
from reference_impl.body_guard import FREE_BODY_BYTES, TRIMMER, BodySlots, GuardedFlow

SHUTDOWN_LINGER = 1.0  # seconds a closing TLS connection may take once the server stops
METHOD_ROOM = 16  # bytes of a method name before the request line's URL
URL_PROBE = 64  # bytes of the URL searched for to find the request line
REASONS = {
    400: b"Bad Request",
    408: b"Request Timeout",
    503: b"Service Unavailable",
    431: b"Request Header Fields Too Large",
}


class BlockTooLarge(Exception):
    """Raised inside the parser's headers-complete callback to stop it (httptools re-raises it
    as HttpParserCallbackError from feed_data)."""


class GuardedHttpTools(HttpToolsProtocol):
    """HttpToolsProtocol with a bound on header bytes and header time; errors after answers."""

    max_header_bytes = 16384
    header_timeout = 15.0
    body_idle_timeout = 30.0
    body_min_rate = 1024.0  # bytes per second, averaged, after the first body_idle_timeout
    send_idle_timeout = 30.0  # seconds a reply may wait for its client to read more
    body_slots: BodySlots | None = None  # shared by every listener of the process
    slot_client = ""  # the peer address: whose share of the body slots this body counts in

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_headers = False  # between a message's first byte and its complete header block
        self._header_bytes = 0
        self._began_in_feed = False
        self._completed_in_feed = False
        self._feeding = b""  # the read being parsed, for the block that completes in it
        self._tail = b""  # the last bytes of the read before: a terminator may span two reads
        self._oversized = False  # the block that completed was past the bound: 431
        self._header_timer: asyncio.TimerHandle | None = None
        self._running: RequestResponseCycle | None = None
        self._input_closed = False  # no more parsing: an error is answered or waits its turn
        self._deferred: tuple[int, str] | None = None
        self._body_active = False  # headers complete, body still arriving
        self._body_bytes = 0
        self._body_started = self._last_byte = self._paused_base = 0.0
        self._window_start: float | None = None  # active seconds when the rate window began
        self._window_bytes = 0  # body bytes then
        self._slot = False
        self._slot_since = 0.0  # when this body got its slot
        self._slot_wait_since: float | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._send_timer: asyncio.TimerHandle | None = None
        self._send_pending = 0  # reply bytes unsent when the send timer was last armed
        self.flow: GuardedFlow

    # -- connection -------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.flow = GuardedFlow(transport)
        self.slot_client = self.client[0] if self.client else ""
        self._arm_header_timer()  # a connection that never sends a byte is timed out too

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self._cancel_send_timer()
        if self._body_active:  # a body cut short: its buffers are garbage now
            TRIMMER.soon(self.loop)
        self._end_body()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """The server stops: an idle connection is closed at once (uvicorn's), and over TLS
        aborted if still there after SHUTDOWN_LINGER. A TLS close waits for the client's
        close_notify, up to the loop's 30 s ssl_shutdown_timeout, and uvicorn waits for every
        connection: one idle TLS client held a SIGTERM for 30 s (hostile round 6)."""
        super().shutdown()
        if self.transport.is_closing() and self.transport.get_extra_info("ssl_object"):
            self.loop.call_later(SHUTDOWN_LINGER, self.transport.abort)

    # -- replies the client does not read ------------------------------------------------------
    def pause_writing(self) -> None:
        """The client stopped taking the reply (the send buffer is full): it has
        `send_idle_timeout` to take more, else the connection is dropped. Untimed, a download
        nobody read held its connection, task and blob for ever, and `max_connections` of them
        shut every other client out (anonymously, on the public listener).

        The timeout is about progress, like nginx's send_timeout: a reply whose client took
        any byte during the timeout (the transport's buffer plus the kernel's unsent queue
        shrank) gets another one. A client reading steadily but slowly is not cut because one
        256 KiB piece and the kernel's megabytes of send buffer did not drain in time."""
        super().pause_writing()
        if self._send_timer is None:
            self._send_pending = self._unsent()
            self._send_timer = self.loop.call_later(self.send_idle_timeout, self._send_stalled)

    def resume_writing(self) -> None:
        self._cancel_send_timer()
        super().resume_writing()

    def _cancel_send_timer(self) -> None:
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    def _unsent(self) -> int:
        """Reply bytes not yet taken by the client: the transport's buffer and, where the
        kernel tells (Linux SIOCOUTQ), the socket's send queue."""
        pending = self.transport.get_write_buffer_size()
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                raw = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, struct.pack("i", 0))
                pending += struct.unpack("i", raw)[0]
        return pending

    def _send_stalled(self) -> None:
        self._send_timer = None
        pending = self._unsent()
        if pending < self._send_pending:  # the client took bytes meanwhile: still reading
            self._send_pending = pending
            self._send_timer = self.loop.call_later(self.send_idle_timeout, self._send_stalled)
            return
        self._input_closed = True
        self.transport.abort()  # close() would wait for the client to take the buffered bytes

    def data_received(self, data: bytes) -> None:
        if self._input_closed:
            return
        self._unset_keepalive_if_required()
        self._began_in_feed = self._completed_in_feed = False
        self._feeding = data
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if self._oversized:  # raised by on_headers_complete: no cycle was started
                self._refuse(431, f"request header block over {self.max_header_bytes} bytes")
            else:
                self._refuse(400, "Invalid HTTP request received.")
            return
        except httptools.HttpParserUpgrade:
            self._unsupported_upgrade_warning()  # no surface speaks WebSocket (ws="none")
        finally:
            self._feeding, self._tail = b"", data[-2:]
        if self._in_headers and not self._input_closed:
            if not self._began_in_feed:
                self._header_bytes += len(data)
            elif not self._completed_in_feed:  # this read began with the message
                self._header_bytes = len(data)
            else:  # earlier messages ended in this read: count from this one's request line
                self._header_bytes = len(data) - self._request_line_at(data)
            if self._header_bytes > self.max_header_bytes:
                self._refuse(431, f"request header block over {self.max_header_bytes} bytes")
        if self._body_active and self._body_timer is None and not self._input_closed:
            self._arm_body_timer(self.body_idle_timeout)

    def _completed_block_bytes(self) -> int:
        """Bytes of the header block that completes in this read, as sent: the count runs only
        while a block is incomplete, so a block whose last read ends it was never weighed, and
        the parsed block (header_bound.py) has lost the whitespace around each value: 20 KB of
        spaces before `v` were served (hostile round 13). Errs low, never high: the block ends
        at the first blank line (a header line cannot hold one); behind an earlier message in
        the same read its start is not known (a URL search could land in a later body), so it
        is left to header_bound.py's parsed count."""
        data = self._feeding
        if self._began_in_feed:
            if self._completed_in_feed:
                return 0
            before, tail = 0, b""
        else:
            before, tail = self._header_bytes, self._tail
        text = tail + data
        ends = [at for at in (text.find(b"\n\r\n"), text.find(b"\n\n")) if at >= 0]
        if not ends:
            return before
        return before + max(min(ends) - len(tail), 0)

    def _request_line_at(self, data: bytes) -> int:
        """Where the message being read begins in `data`, at or a little before its request
        line (its URL's last occurrence, less room for the method); never an earlier message's
        bytes, so the header count errs low by at most one read, never high."""
        if not self.url:
            return max(len(data) - METHOD_ROOM, 0)
        at = data.rfind(b" " + self.url[:URL_PROBE])
        return max(at - METHOD_ROOM, 0) if at >= 0 else len(data)

    # -- parser callbacks -------------------------------------------------------------------
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_headers, self._header_bytes, self._began_in_feed = True, 0, True
        self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._cancel_header_timer()
        if self._completed_block_bytes() > self.max_header_bytes:
            self._oversized = True
            raise BlockTooLarge  # stops the parser before uvicorn starts the request's cycle
        super().on_headers_complete()
        now = time.monotonic()
        self._body_active, self._body_bytes = True, 0
        self._body_started = self._last_byte = now
        self._paused_base = self.flow.paused_until(now)
        self._window_start = None

    def on_body(self, body: bytes) -> None:
        if self._body_active:
            self._body_bytes += len(body)
            self._last_byte = time.monotonic()
            if self._body_bytes > FREE_BODY_BYTES and not self._slot:
                self._need_slot()
            if self._slot and self.body_slots is not None and self._past_backlog():
                self.body_slots.moved(self.slot_client, self._last_byte)
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._completed_in_feed = True
        if self._slot and self.body_slots is not None:  # a whole body: the client's queue moves
            self.body_slots.moved(self.slot_client, time.monotonic())
        self._end_body()
        super().on_message_complete()

    # -- answering in order -----------------------------------------------------------------
    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        self._running = cycle
        cycle.default_headers = date_header.refreshed(cycle.default_headers)
        super()._start_asgi_task(cycle, app)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._deferred is not None and not self._pending():
            self._send_error(*self._deferred)

    def _pending(self) -> bool:
        """A request read before the error still owes its response."""
        running = self._running
        busy = running is not None and not running.response_complete and not running.disconnected
        return busy or bool(self.pipeline)

    def _refuse(self, status: int, message: str) -> None:
        """Stop reading; answer `status` once every earlier request has had its answer."""
        self._input_closed, self._in_headers = True, False
        self._cancel_header_timer()
        self._end_body()
        broken = self.cycle
        if broken is not None and broken.more_body and not broken.response_complete:
            broken.disconnected = True  # its body is cut short: the handler sees a disconnect
            broken.message_event.set()
            self.pipeline = type(self.pipeline)(p for p in self.pipeline if p[0] is not broken)
        if self._pending():
            self._deferred = (status, message)
            self.flow.pause_reading()
        else:
            self._send_error(status, message)

    def _send_error(self, status: int, message: str) -> None:
        self._deferred = None
        if self.transport.is_closing():
            return
        body = message.encode("ascii", "replace")
        head = [b"HTTP/1.1 %d %s\r\n" % (status, REASONS[status])]
        for name, value in date_header.refreshed(self.server_state.default_headers):
            head.append(name + b": " + value + b"\r\n")
        head.append(b"content-type: text/plain; charset=utf-8\r\n")
        head.append(b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body))
        self.transport.write(b"".join(head) + body)
        self.transport.close()

    # -- header timer -----------------------------------------------------------------------
    def _arm_header_timer(self) -> None:
        if self._header_timer is None and self.header_timeout > 0:
            self._header_timer = self.loop.call_later(self.header_timeout, self._header_expired)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_expired(self) -> None:
        self._header_timer = None
        if self.transport is None or self.transport.is_closing():
            return
        if self._in_headers:
            self._refuse(408, f"request header block not complete within {self.header_timeout:g} s")
        elif self.cycle is None:  # opened and silent: nothing to answer, just let it go
            self.transport.close()

    # -- body slots and body timer --------------------------------------------------------
    def _need_slot(self) -> None:
        slots = self.body_slots
        if slots is None or self._slot_wait_since is not None:
            return
        if slots.take(self.slot_client):
            self._slot, self._slot_since = True, time.monotonic()
            return
        self._slot_wait_since = time.monotonic()
        slots.wait(self)
        self.flow.pause_reading()  # the rest of this body stays in the kernel until a slot frees
        self.flow.held = True

    def slot_granted(self) -> None:
        """BodySlots hands this body a slot: read on."""
        self._slot, self._slot_wait_since = True, None
        self._slot_since = time.monotonic()
        self.flow.held = False
        if not self._input_closed:
            self.flow.resume_reading()

    def _past_backlog(self) -> bool:
        """Bytes read in a body's first third of a body timeout with a slot may be its backlog
        (the kernel kept them while it waited): a stalled flood's next round reads that at once
        and then falls silent, so only later bytes show that a client's uploads are moving."""
        return self._last_byte - self._slot_since >= self.body_idle_timeout / 3

    def share_freed(self) -> None:
        """This client's bodies no longer hold its whole share: the wait for a slot another
        client holds is timed from now."""
        if self._slot_wait_since is not None:
            self._slot_wait_since = time.monotonic()

    def _end_body(self) -> None:
        """The body is complete or will never be: its slot, its place in line, its timer go."""
        self._body_active = False
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None
        slots = self.body_slots
        if slots is not None:
            if self._slot:
                slots.give_back(self.slot_client)
            elif self._slot_wait_since is not None:
                slots.forget(self)
        self._slot, self._slot_wait_since = False, None
        self.flow.held = False

    def _arm_body_timer(self, delay: float) -> None:
        if self.body_idle_timeout > 0:
            self._body_timer = self.loop.call_later(max(delay, 0.05), self._body_check)

    def _body_check(self) -> None:
        """Is the body still moving? Reschedules itself for the nearest deadline."""
        self._body_timer = None
        if not self._body_active or self._input_closed or self.transport.is_closing():
            return
        now, limit = time.monotonic(), self.body_idle_timeout
        if self._slot_wait_since is not None:
            # behind this client's own bodies, the wait is timed from their last byte: a
            # client's uploads queue while its others run, not while they stall
            moved = self.body_slots.waits_on_own(self.slot_client) if self.body_slots else None
            waited = now - max(self._slot_wait_since, moved or 0.0)
            if waited >= limit:
                self._body_expired(503, f"no body slot free within {limit:g} s, try again")
            else:
                self._arm_body_timer(limit - waited)
            return
        if self.flow.read_paused:  # the server is not reading: not the client's doing
            self._arm_body_timer(limit)
            return
        cycle = self.cycle
        if cycle is not None and cycle.waiting_for_100_continue:  # the client waits for us
            self._body_started = self._last_byte = now
            self._window_start = None
            self._arm_body_timer(min(limit, 1.0))
            return
        idle = now - max(self._last_byte, self.flow.resumed_at)
        active = now - self._body_started - (self.flow.paused_until(now) - self._paused_base)
        allowed = limit + (
            self._body_bytes / self.body_min_rate if self.body_min_rate > 0 else 1e18
        )
        rate = self.body_min_rate
        if idle >= limit:
            self._body_expired(408, f"no request body byte for {limit:g} s")
        elif active >= allowed:
            self._body_expired(408, f"request body slower than {rate:g} bytes/s on average")
        elif self._window_too_slow(active):
            self._body_expired(408, f"request body slower than {rate:g} bytes/s for {limit:g} s")
        else:
            window_end = limit if self._window_start is None else self._window_start + limit
            self._arm_body_timer(min(limit - idle, allowed - active, window_end - active))

    def _window_too_slow(self, active: float) -> bool:
        """Past the grace, every window of body_idle_timeout active seconds must carry the
        minimum rate too: the average alone let a body that sent much at once bank credit and
        then keep its body slot with a byte now and then (one a second: minutes per 300 KB)."""
        limit, rate = self.body_idle_timeout, self.body_min_rate
        if rate <= 0 or active < limit:
            return False
        if self._window_start is None:
            self._window_start, self._window_bytes = active, self._body_bytes
            return False
        span = active - self._window_start
        if span < limit:
            return False
        if self._body_bytes - self._window_bytes < rate * span:
            return True
        self._window_start, self._window_bytes = active, self._body_bytes
        return False

    def _body_expired(self, status: int, message: str) -> None:
        TRIMMER.soon(self.loop)
        running = self._running
        if running is not None and running.response_started and not running.response_complete:
            self._end_body()  # an answer is half sent: nothing else can be said on this wire
            self._input_closed = True
            self.transport.close()
            return
        self._refuse(status, message)


def guarded_protocol(
    max_header_bytes: int,
    header_timeout: float,
    body_idle_timeout: float = GuardedHttpTools.body_idle_timeout,
    body_min_rate: float = GuardedHttpTools.body_min_rate,
    body_slots: BodySlots | None = None,
    send_idle_timeout: float = GuardedHttpTools.send_idle_timeout,
) -> type[GuardedHttpTools]:
    """The protocol class of one listener, with its limits (uvicorn.Config(http=...))."""
    limits = {
        "max_header_bytes": int(max_header_bytes),
        "header_timeout": float(header_timeout),
        "body_idle_timeout": float(body_idle_timeout),
        "body_min_rate": float(body_min_rate),
        "body_slots": body_slots,
        "send_idle_timeout": float(send_idle_timeout),
    }
    return type("GuardedHttpToolsListener", (GuardedHttpTools,), limits)
