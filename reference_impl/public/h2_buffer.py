"""HTTP/2 send buffers that really pause the app (hypercorn's StreamBuffer, corrected).

hypercorn (0.18) pauses an app's `send` once a stream's buffer holds two frames, and resumes it
when a `pop()` returns less than one frame. When the client's flow-control window is closed
(a client that never reads), its sender pops zero bytes, which "resumes" the app at once: the
app then reads the whole object into the buffer. Ten anonymous connections of 100 streams each
on a 4 MiB public object took the reference from 95 MiB to 3.4 GiB (fresh adversarial pass,
issue 26). Here the app resumes only once the buffer itself has drained below the low-water
mark, so a stream holds at most about two of the app's chunks, whatever the client does.

hypercorn has no send timeout either: a paused app waited for ever on a client that kept its
window shut. Here it waits while the client takes bytes (the buffer shrinks), and gives up
(`SendStalled`) once `send_idle_timeout_s` passed with nothing taken, as the uvicorn listeners
do; the app then ends, and the connection closes when idle (hypercorn's keep-alive timeout).
"""

from __future__ import annotations

import asyncio
import types
from importlib import metadata
from typing import Any

from hypercorn.protocol import h2 as hypercorn_h2

LOW_WATER = hypercorn_h2.BUFFER_LOW_WATER
# hypercorn releases whose StreamBuffer this correction was checked against (its pop/push and
# attributes are the same in 0.16.0, 0.17.3 and 0.18.0); another release must be read first
KNOWN_VERSIONS = ((0, 16), (0, 17), (0, 18))
ATTRIBUTES = ("buffer", "_paused", "_is_empty", "_complete")


class SendStalled(Exception):
    """The client took nothing of a stream's reply for `send_idle_timeout_s`."""


class DrainingStreamBuffer(hypercorn_h2.StreamBuffer):
    """Resumes a paused sender when the buffer is nearly empty, not when a pop was short;
    gives up when the client took nothing for `stall_timeout` seconds (None: never)."""

    stall_timeout: float | None = None  # set by install()

    async def push(self, data: bytes) -> None:
        if self._complete:
            raise hypercorn_h2.BufferCompleteError()
        self.buffer.extend(data)
        await self._is_empty.clear()
        if len(self.buffer) >= hypercorn_h2.BUFFER_HIGH_WATER:
            await self._drained()
            await self._paused.clear()

    async def _drained(self) -> None:
        """Until the sender resumes us; each timeout that saw the buffer shrink starts another."""
        while True:
            left = len(self.buffer)
            try:
                await asyncio.wait_for(self._paused.wait(), self.stall_timeout)
                return
            except TimeoutError:
                if len(self.buffer) >= left:
                    raise SendStalled(f"no byte taken for {self.stall_timeout} s") from None

    async def pop(self, max_length: int) -> bytes:
        length = min(len(self.buffer), max_length)
        data = bytes(self.buffer[:length])
        del self.buffer[:length]
        if len(self.buffer) < LOW_WATER:
            await self._paused.set()
        if len(self.buffer) == 0:
            await self._is_empty.set()
        return data


class IncompatibleHypercorn(RuntimeError):
    """The installed hypercorn is not one this correction was checked against."""


def _names(code: types.CodeType) -> set[str]:
    """Global and attribute names a function uses, nested functions included."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found


class _Event:
    """Stands in for hypercorn's event class to build a buffer outside a loop."""


def problems(module: Any = hypercorn_h2, version: str | None = None) -> list[str]:
    """Why the correction would not apply to this hypercorn (empty when it does): a release
    outside KNOWN_VERSIONS, a missing low-water mark, a StreamBuffer without the attributes
    `pop` uses, or an H2Protocol that no longer builds its buffers from the module's
    `StreamBuffer` (then replacing it would silently change nothing)."""
    found = []
    version = version or metadata.version("hypercorn")
    release = tuple(int(p) for p in version.split(".")[:2] if p.isdecimal())
    if release not in KNOWN_VERSIONS:
        found.append(f"hypercorn {version} is not one of the checked releases {KNOWN_VERSIONS}")
    for mark in ("BUFFER_LOW_WATER", "BUFFER_HIGH_WATER"):
        if not isinstance(getattr(module, mark, None), (int, float)):
            found.append(f"hypercorn.protocol.h2.{mark} is gone")
    if not isinstance(getattr(module, "BufferCompleteError", None), type):
        found.append("hypercorn.protocol.h2.BufferCompleteError is gone")
    buffer_class = getattr(module, "StreamBuffer", None)
    if not isinstance(buffer_class, type) or not callable(getattr(buffer_class, "pop", None)):
        found.append("hypercorn.protocol.h2.StreamBuffer (with pop) is gone")
    else:
        try:
            sample = buffer_class(_Event)
            missing = [name for name in ATTRIBUTES if not hasattr(sample, name)]
        except Exception as exc:  # a changed constructor
            missing = [f"a StreamBuffer(event_class) ({type(exc).__name__}: {exc})"]
        if missing:
            found.append(f"StreamBuffer has no {', '.join(missing)}")
    protocol = getattr(module, "H2Protocol", None)
    used = set()
    for member in vars(protocol).values() if isinstance(protocol, type) else ():
        code = getattr(member, "__code__", None)
        if isinstance(code, types.CodeType):
            used |= _names(code)
    if "StreamBuffer" not in used:
        found.append("H2Protocol no longer builds stream buffers from the module's StreamBuffer")
    return found


def install(module: Any = hypercorn_h2, stall_timeout: float | None = None) -> None:
    """Make hypercorn's HTTP/2 protocol use the corrected buffer (idempotent), giving up on a
    client that takes nothing for `stall_timeout` s. Raises IncompatibleHypercorn, at the TLS
    listener's start, rather than serve unpatched."""
    found = problems(module)
    if found:
        raise IncompatibleHypercorn(
            "the HTTP/2 buffer correction (reference_impl/public/h2_buffer.py) cannot apply: "
            + "; ".join(found)
        )
    DrainingStreamBuffer.stall_timeout = stall_timeout
    module.StreamBuffer = DrainingStreamBuffer
