"""Bounded request bodies: the pieces `guarded_http.py` uses to time and ration them.

uvicorn never times out a request body: 150 connections that declared 1 MiB, sent most of it
and fell silent held 146 MiB and stayed open for good (issue 26, HIGH 3). A body must keep
moving (an idle limit and a minimum average rate, checked by the protocol), and only a fixed
number of bodies per process may be past their first `FREE_BODY_BYTES` at once: a body that
needs a slot while none is free is simply not read (its bytes wait in the kernel, not in the
heap) until one frees. A small body (a JSON-RPC call, an XML document) never needs a slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT, FlowControl

FREE_BODY_BYTES = HIGH_WATER_LIMIT  # what uvicorn buffers per connection anyway (64 KiB)


class SlotWaiter(Protocol):
    def slot_granted(self) -> None: ...


class BodySlots:
    """Process-wide count of request bodies being received past their first bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = max(int(limit), 1)
        self.used = 0
        self._waiting: deque[SlotWaiter] = deque()

    def take(self) -> bool:
        """A slot now, or False (then `wait`)."""
        if self.used < self.limit and not self._waiting:
            self.used += 1
            return True
        return False

    def wait(self, who: SlotWaiter) -> None:
        self._waiting.append(who)

    def forget(self, who: SlotWaiter) -> None:
        """`who` stopped waiting (closed, refused)."""
        with contextlib.suppress(ValueError):
            self._waiting.remove(who)

    def give_back(self) -> None:
        """A slot is free again: handed to the longest waiter, if any."""
        if self._waiting:
            self._waiting.popleft().slot_granted()  # the slot changes hands, `used` unchanged
        else:
            self.used = max(self.used - 1, 0)


class GuardedFlow(FlowControl):
    """uvicorn's read flow control, plus: reads held off while a body waits for a slot (no
    `resume_reading` from the app undoes that), and the time the server itself kept reading
    paused, which a body's timers do not count against the client."""

    def __init__(self, transport: object) -> None:
        super().__init__(transport)  # type: ignore[arg-type]
        self.held = False
        self.paused_total = 0.0  # seconds reads were paused, since the connection opened
        self.resumed_at = 0.0  # when reads last resumed
        self._paused_at: float | None = None

    def pause_reading(self) -> None:
        if not self.read_paused:
            self._paused_at = time.monotonic()
        super().pause_reading()

    def resume_reading(self) -> None:
        if self.held:
            return
        if self.read_paused and self._paused_at is not None:
            now = time.monotonic()
            self.paused_total += now - self._paused_at
            self.resumed_at = now
            self._paused_at = None
        super().resume_reading()

    def paused_until(self, now: float) -> float:
        """Total paused seconds up to `now`, the pause under way included."""
        current = now - self._paused_at if self._paused_at is not None else 0.0
        return self.paused_total + current


class _Trimmer:
    """Hands freed heap back to the system a little after bodies were dropped.

    A flood of half-sent bodies leaves many freed 64-256 KiB buffers in glibc's heap, which it
    keeps (RSS stayed +86 MiB after every flood connection had closed); `malloc_trim` returns
    the free pages. Runs at most once per `PERIOD` seconds, only after a body was dropped.
    """

    PERIOD = 2.0

    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None
        self._trim: Callable[[int], int] | None = None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            self._trim = libc.malloc_trim
        except (OSError, AttributeError):  # not glibc: nothing to do
            self._trim = None

    def soon(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._trim is not None and self._handle is None:
            self._handle = loop.call_later(self.PERIOD, self._run)

    def _run(self) -> None:
        self._handle = None
        if self._trim is not None:
            self._trim(0)


TRIMMER = _Trimmer()
