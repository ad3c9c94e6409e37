"""Bounded request bodies: the pieces `guarded_http.py` uses to time and ration them.

uvicorn never times out a request body: 150 connections that declared 1 MiB, sent most of it
and fell silent held 146 MiB and stayed open for good (issue 26, HIGH 3). A body must keep
moving (an idle limit and a minimum average rate, checked by the protocol), and only a fixed
number of bodies per process may be past their first `FREE_BODY_BYTES` at once: a body that
needs a slot while none is free is simply not read (its bytes wait in the kernel, not in the
heap) until one frees; one client (peer address) holds at most its share of the slots. A
small body (a JSON-RPC call, an XML document) never needs a slot.
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
    slot_client: str  # who is asking: the peer address (one client's share is bounded)

    def slot_granted(self) -> None: ...

    def share_freed(self) -> None: ...


class BodySlots:
    """Process-wide count of request bodies being received past their first bytes.

    One client (peer address) holds at most `per_client` slots: without that, `limit` honest
    uploads just above the minimum rate (slow, never cut off) held every slot for as long as
    they ran and every other client's upload got 503. A body whose client holds its share waits
    behind that client's own bodies (as long as they keep getting bytes); any other waiter that
    fits is served first, in order.
    """

    def __init__(self, limit: int, per_client: int | None = None) -> None:
        self.limit = max(int(limit), 1)
        self.per_client = max(int(per_client or self.limit), 1)
        self.used = 0
        self._held: dict[str, int] = {}  # slots per client, clients holding none left out
        self._moved: dict[str, float] = {}  # when a body holding a slot of the client got bytes
        self._waiting: deque[SlotWaiter] = deque()

    def at_share(self, client: str) -> bool:
        """`client` holds all the slots one client may hold."""
        return self._held.get(client, 0) >= self.per_client

    def moved(self, client: str, when: float) -> None:
        """A body holding one of `client`'s slots received new bytes, or all of them, at `when`."""
        self._moved[client] = when

    def waits_on_own(self, client: str) -> float | None:
        """When `client`'s bodies last got bytes, if it holds its whole share (its waiters
        wait behind its own bodies), else None (its waiters wait for other clients')."""
        return self._moved.get(client, 0.0) if self.at_share(client) else None

    def take(self, client: str) -> bool:
        """A slot now, or False (then `wait`). No waiter that fits is ever left behind while a
        slot is free (`give_back` serves them first), so taking one keeps the order fair."""
        if self.used < self.limit and not self.at_share(client):
            self._grant(client)
            return True
        return False

    def wait(self, who: SlotWaiter) -> None:
        self._waiting.append(who)

    def forget(self, who: SlotWaiter) -> None:
        """`who` stopped waiting (closed, refused)."""
        with contextlib.suppress(ValueError):
            self._waiting.remove(who)

    def give_back(self, client: str) -> None:
        """`client`'s slot is free again: handed to the longest waiter of another client that is
        below its share, else to this client's longest waiter, if any. The client's other waiters,
        no longer held back by their own client, start timing their wait now."""
        was_at_share = self.at_share(client)
        held = self._held.get(client, 0) - 1
        if held > 0:
            self._held[client] = held
        else:
            self._held.pop(client, None)
            self._moved.pop(client, None)
        self.used = max(self.used - 1, 0)
        # another client's waiter first: the freeing client's own queued bodies (queued earlier,
        # maybe many) would otherwise take its slot back, round after round
        others = [w for w in self._waiting if w.slot_client != client]
        for who in others + [w for w in self._waiting if w.slot_client == client]:
            if self.used >= self.limit:
                break
            if not self.at_share(who.slot_client):
                self._waiting.remove(who)
                self._grant(who.slot_client)
                who.slot_granted()
        if was_at_share and not self.at_share(client):
            for who in [w for w in self._waiting if w.slot_client == client]:
                who.share_freed()

    def _grant(self, client: str) -> None:
        self.used += 1
        self._held[client] = self._held.get(client, 0) + 1


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
