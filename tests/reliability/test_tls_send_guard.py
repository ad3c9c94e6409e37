"""The TLS listener's send timeout (`reference_impl/public/tls_send.py`) and its late-DATA
correction (`h2_events.py`), without a server.

`install()` replaces hypercorn's connection class; on a hypercorn whose `serve` no longer builds
connections from `hypercorn.asyncio.run.TCPServer` it must refuse rather than serve untimed.
`drain_or_abort` is the rule itself: abort a connection whose client took nothing for the
timeout, keep one whose pending bytes keep shrinking. `h2_events.install()` likewise
replaces the HTTP/2 connection class, or refuses.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest
from hypercorn import protocol as hypercorn_protocol
from hypercorn.asyncio import run as hypercorn_run

from reference_impl.public import h2_events, tls_send


@pytest.fixture(autouse=True)
def _restore_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hypercorn_run, "TCPServer", hypercorn_run.TCPServer)
    monkeypatch.setattr(hypercorn_protocol, "H2Protocol", hypercorn_protocol.H2Protocol)
    monkeypatch.setattr(hypercorn_protocol, "H11Protocol", hypercorn_protocol.H11Protocol)


def test_installed_hypercorn_is_patched() -> None:
    tls_send.install(1.5)
    assert hypercorn_run.TCPServer is tls_send.SendTimedTCPServer
    tls_send.install(1.5)  # idempotent
    assert hypercorn_run.TCPServer is tls_send.SendTimedTCPServer
    assert tls_send.SendTimedTCPServer.send_timeout == 1.5


def test_serve_without_tcp_server_refuses() -> None:
    with pytest.raises(RuntimeError, match="cannot apply"):
        tls_send.install(1.0, types.SimpleNamespace())


class _Writer:
    """A stream writer whose drain never ends; `taken` bytes leave its buffer per check."""

    def __init__(self, pending: int, taken: int) -> None:
        self.pending, self.taken = pending, taken
        self.aborted = False
        self.transport = self

    def get_write_buffer_size(self) -> int:
        self.pending = max(self.pending - self.taken, 0)
        return self.pending

    def get_extra_info(self, name: str) -> Any:
        return None

    def abort(self) -> None:
        self.aborted = True

    async def drain(self) -> None:
        await asyncio.sleep(3600)


def test_stalled_client_is_aborted() -> None:
    writer = _Writer(pending=1 << 20, taken=0)
    with pytest.raises(tls_send.SendStalledConnection):
        asyncio.run(asyncio.wait_for(tls_send.drain_or_abort(writer, 0.05), 5))
    assert writer.aborted


def test_progressing_client_is_kept() -> None:
    """Bytes keep leaving: still draining after many timeouts, never aborted."""
    writer = _Writer(pending=1 << 20, taken=1)
    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(tls_send.drain_or_abort(writer, 0.02), 0.3))
    assert not writer.aborted


def test_h2_event_corrections_are_installed() -> None:
    h2_events.install()
    assert hypercorn_protocol.H2Protocol is h2_events.GuardedH2Protocol
    assert hypercorn_protocol.H11Protocol is h2_events.TlsH11Protocol
    h2_events.install()  # idempotent
    assert hypercorn_protocol.H2Protocol is h2_events.GuardedH2Protocol


def test_h2_event_corrections_refuse_another_wrapper(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ProtocolWrapper that builds its HTTP/2 connections some other way: replacing the
    name would change nothing, so the listener must not start."""

    class Wrapper:
        def __init__(self) -> None:
            self.protocol = object()

    monkeypatch.setattr(hypercorn_protocol, "ProtocolWrapper", Wrapper)
    with pytest.raises(RuntimeError, match="no longer builds H2Protocol"):
        h2_events.install()


def test_a_hypercorn_error_ends_its_connection_alone(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Raised out of the connection's task it was a traceback per connection and exit 1 at
    shutdown; now one WARNING line and the task ends normally."""

    async def broken(self: Any) -> None:
        raise ExceptionGroup("unhandled errors in a TaskGroup", [KeyError(1)])

    monkeypatch.setattr(hypercorn_run.TCPServer, "run", broken)
    server = tls_send.SendTimedTCPServer.__new__(tls_send.SendTimedTCPServer)
    asyncio.run(server.run())
    assert "hypercorn error: KeyError: 1" in caplog.text
