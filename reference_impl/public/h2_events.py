"""HTTP/2 events hypercorn 0.18 turns into a crash of the connection: late DATA, CONNECT.

The public listener answers a request with a body (a PUT: 405, it is read-only) without reading
it, and hypercorn then drops the stream. The client's side of the stream is still open, so
more DATA for it is legal (RFC 9113 section 8.1: a server may answer before the request is
complete). hypercorn 0.18 handles a late END_STREAM (`except KeyError`) but not late DATA: its
`self.streams[stream_id]` raised KeyError, which ended the connection and every stream on it,
logged a traceback per connection for any anonymous client, and made the reference exit 1 at
its next shutdown (hostile round 6, `test_h2_events.py`).

Here such DATA is acknowledged (the connection's window must not shrink for good, or the
client's other streams stall) and dropped.

A CONNECT request (RFC 9113 section 8.5: no `:path`) hit hypercorn's stream setup, which reads
`:path` into a variable it never set otherwise (UnboundLocalError), with the same effects. The
listener is no proxy: such a stream is refused (REFUSED_STREAM, "not processed"), the
connection and its other streams go on. Every other event goes to hypercorn unchanged.
"""

from __future__ import annotations

from typing import Any

import h2.errors
import h2.events
from hypercorn import protocol as hypercorn_protocol
from hypercorn.protocol.h2 import H2Protocol

# what `_handle_events` below relies on: set by hypercorn's H2Protocol.__init__ (0.18)
ATTRIBUTES = ("streams", "connection")


class GuardedH2Protocol(H2Protocol):
    """hypercorn's HTTP/2 connection, dropping DATA for streams it has closed and refusing
    requests without a `:path`."""

    async def _handle_events(self, events: list[h2.events.Event]) -> None:
        # one event at a time: handling one may close a stream a later one names
        for event in events:
            if isinstance(event, h2.events.DataReceived) and event.stream_id not in self.streams:
                length = int(event.flow_controlled_length or 0)
                self.connection.acknowledge_received_data(length, event.stream_id)
                continue
            if isinstance(event, h2.events.RequestReceived) and not _has_path(event):
                self.connection.reset_stream(event.stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
                continue
            await super()._handle_events([event])
        await self._flush()


def _has_path(event: h2.events.RequestReceived) -> bool:
    names = (
        name.encode() if isinstance(name, str) else bytes(name) for name, _ in event.headers or ()
    )
    return b":path" in set(names)


class IncompatibleHypercorn(RuntimeError):
    """The installed hypercorn is not one this correction was written against."""


def problems(module: Any = hypercorn_protocol) -> list[str]:
    """Why the correction would not apply (empty when it does): the protocol wrapper no longer
    builds HTTP/2 connections from `hypercorn.protocol.H2Protocol`, or H2Protocol lost what
    the override uses."""
    found = []
    protocol = getattr(module, "H2Protocol", None)
    if not isinstance(protocol, type) or not issubclass(protocol, H2Protocol):
        found.append("hypercorn.protocol.H2Protocol is gone")
    wrapper = getattr(module, "ProtocolWrapper", None)
    code = getattr(getattr(wrapper, "__init__", None), "__code__", None)
    if code is None or "H2Protocol" not in code.co_names:
        found.append("ProtocolWrapper no longer builds H2Protocol by name")
    for method in ("_handle_events", "_flush"):
        if not callable(getattr(H2Protocol, method, None)):
            found.append(f"H2Protocol.{method} is gone")
    init = getattr(H2Protocol.__init__, "__code__", None)
    assigned = set(init.co_names) if init is not None else set()
    missing = [name for name in ATTRIBUTES if name not in assigned]
    if missing:
        found.append(f"H2Protocol no longer sets {', '.join(missing)}")
    return found


def install(module: Any = hypercorn_protocol) -> None:
    """Make hypercorn build the corrected HTTP/2 connection (idempotent). Raises
    IncompatibleHypercorn, at the TLS listener's start, rather than serve uncorrected."""
    found = problems(module)
    if found:
        raise IncompatibleHypercorn(
            "the HTTP/2 event corrections (reference_impl/public/h2_events.py) cannot apply: "
            + "; ".join(found)
        )
    module.H2Protocol = GuardedH2Protocol
