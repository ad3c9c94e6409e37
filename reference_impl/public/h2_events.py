"""HTTP/2 as hypercorn 0.18 mishandles it: late DATA and CONNECT crash the connection, and
HTTP/1.1 over TLS switches to HTTP/2 without ALPN.

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

Over TLS, HTTP/2 is negotiated by ALPN only (RFC 9113 section 3.2; the `h2c` Upgrade is for
cleartext and deprecated, section 3.1). hypercorn's HTTP/1.1 connection also switched on an
`Upgrade: h2c` request (101, then HTTP/2) and on the HTTP/2 preface sent as HTTP/1.1 text, over
TLS too, and so served HTTP/2 on custom domains before `public_http2`'s date, when ALPN offers
only `http/1.1`. Over TLS both are now plain HTTP/1.1 requests (the preface's `PRI *` one is
refused like any other request the bucket has no answer for).
"""

from __future__ import annotations

from typing import Any

import h2.errors
import h2.events
from hypercorn import protocol as hypercorn_protocol
from hypercorn.protocol.h2 import H2Protocol
from hypercorn.protocol.h11 import H11Protocol

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


class TlsH11Protocol(H11Protocol):
    """hypercorn's HTTP/1.1 connection, which over TLS never switches to HTTP/2."""

    async def _check_protocol(self, event: Any) -> None:
        if not self.ssl:
            await super()._check_protocol(event)


def _has_path(event: h2.events.RequestReceived) -> bool:
    names = (
        name.encode() if isinstance(name, str) else bytes(name) for name, _ in event.headers or ()
    )
    return b":path" in set(names)


class IncompatibleHypercorn(RuntimeError):
    """The installed hypercorn is not one this correction was written against."""


def problems(module: Any = hypercorn_protocol) -> list[str]:
    """Why the corrections would not apply (empty when it does): the protocol wrapper no longer
    builds connections from `hypercorn.protocol.H2Protocol` / `H11Protocol`, or those lost
    what the overrides use."""
    found = []
    protocol = getattr(module, "H2Protocol", None)
    if not isinstance(protocol, type) or not issubclass(protocol, H2Protocol):
        found.append("hypercorn.protocol.H2Protocol is gone")
    wrapper = getattr(module, "ProtocolWrapper", None)
    code = getattr(getattr(wrapper, "__init__", None), "__code__", None)
    if code is None or "H2Protocol" not in code.co_names:
        found.append("ProtocolWrapper no longer builds H2Protocol by name")
    if code is None or "H11Protocol" not in code.co_names:
        found.append("ProtocolWrapper no longer builds H11Protocol by name")
    for method in ("_handle_events", "_flush"):
        if not callable(getattr(H2Protocol, method, None)):
            found.append(f"H2Protocol.{method} is gone")
    if not callable(getattr(H11Protocol, "_check_protocol", None)):
        found.append("H11Protocol._check_protocol is gone")
    h11_init = getattr(H11Protocol.__init__, "__code__", None)
    if h11_init is None or "ssl" not in h11_init.co_names:
        found.append("H11Protocol no longer sets ssl")
    init = getattr(H2Protocol.__init__, "__code__", None)
    assigned = set(init.co_names) if init is not None else set()
    missing = [name for name in ATTRIBUTES if name not in assigned]
    if missing:
        found.append(f"H2Protocol no longer sets {', '.join(missing)}")
    return found


def install(module: Any = hypercorn_protocol) -> None:
    """Make hypercorn build the corrected connections (idempotent). Raises
    IncompatibleHypercorn, at the TLS listener's start, rather than serve uncorrected."""
    found = problems(module)
    if found:
        raise IncompatibleHypercorn(
            "the HTTP/2 event corrections (reference_impl/public/h2_events.py) cannot apply: "
            + "; ".join(found)
        )
    module.H2Protocol = GuardedH2Protocol
    module.H11Protocol = TlsH11Protocol
