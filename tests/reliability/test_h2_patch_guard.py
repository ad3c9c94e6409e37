"""The HTTP/2 buffer correction fails loudly on a hypercorn it was not checked against.

`reference_impl/public/h2_buffer.py` replaces hypercorn's internal `StreamBuffer` (hypercorn
resumed the app whenever a client's flow-control window was closed; issue 26). On main an
upgrade of hypercorn that renamed the buffer's attributes, or built buffers some other way,
would have left the reference serving unpatched (or failing per stream) without a word. Now
`install()` checks the release and the internals it relies on, and raises at the TLS
listener's start (the reference then exits before its ready file). These tests fake each kind
of change on the real module (monkeypatch restores it).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
from typing import Any

import pytest
from hypercorn.protocol import h2 as hypercorn_h2

from reference_impl.public import h2_buffer


@pytest.fixture(autouse=True)
def _restore_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever install() does to the real module is undone after each test."""
    monkeypatch.setattr(hypercorn_h2, "StreamBuffer", hypercorn_h2.StreamBuffer)


def test_installed_hypercorn_is_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    h2_buffer.install()
    assert hypercorn_h2.StreamBuffer is h2_buffer.DrainingStreamBuffer
    h2_buffer.install()  # idempotent
    assert hypercorn_h2.StreamBuffer is h2_buffer.DrainingStreamBuffer


@pytest.mark.parametrize("version", ["0.19.0", "1.0.0", "0.15.1"])
def test_unchecked_release_refuses(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    monkeypatch.setattr(importlib.metadata, "version", lambda name: version)
    with pytest.raises(RuntimeError, match="cannot apply"):
        h2_buffer.install()


def test_renamed_buffer_attributes_refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    class Renamed:
        def __init__(self, event_class: Any) -> None:
            self.data = bytearray()
            self._resume = event_class()

        async def pop(self, max_length: int) -> bytes:
            return b""

    monkeypatch.setattr(hypercorn_h2, "StreamBuffer", Renamed)
    with pytest.raises(RuntimeError, match="StreamBuffer has no buffer, _paused, _is_empty"):
        h2_buffer.install()


def test_protocol_building_buffers_otherwise_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replacing the module's StreamBuffer would change nothing: that must not pass."""

    class Protocol:
        buffer_class = object

        def _create_stream(self, stream_id: int) -> Any:
            return self.buffer_class()

    monkeypatch.setattr(hypercorn_h2, "H2Protocol", Protocol)
    with pytest.raises(RuntimeError, match="H2Protocol no longer builds"):
        h2_buffer.install()


def test_missing_low_water_mark_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(hypercorn_h2, "BUFFER_LOW_WATER")
    with pytest.raises(RuntimeError, match="BUFFER_LOW_WATER"):
        h2_buffer.install()


def test_closed_window_does_not_resume_the_app() -> None:
    """What the correction is for, on the installed hypercorn: a pop of zero bytes (the
    client's window is closed) leaves a full buffer's sender paused; draining resumes it."""

    async def scenario() -> tuple[bool, bool]:
        buffer = h2_buffer.DrainingStreamBuffer(_AsyncioEvent)
        sender = asyncio.create_task(buffer.push(bytes(int(hypercorn_h2.BUFFER_HIGH_WATER))))
        await asyncio.sleep(0.05)
        await buffer.pop(0)
        await asyncio.sleep(0.05)
        paused_after_empty_pop = not sender.done()
        await buffer.pop(1 << 20)
        await asyncio.wait_for(sender, 5)
        return paused_after_empty_pop, sender.done()

    assert asyncio.run(scenario()) == (True, True)


class _AsyncioEvent:
    """hypercorn's IOEvent over asyncio.Event (awaitable set/clear/wait)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    async def set(self) -> None:
        self._event.set()

    async def clear(self) -> None:
        self._event.clear()

    async def wait(self) -> None:
        await self._event.wait()
