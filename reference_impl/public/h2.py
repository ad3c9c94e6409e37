"""The public entrypoint over TLS, negotiating HTTP/2 by ALPN (hypercorn, in the server's loop).

Why hypercorn: uvicorn speaks HTTP/1.1 only, and the rule "new custom domains have HTTP/2
enabled by default" can only be checked against a listener that offers `h2`. The listener
shares the generated certificate (`reference_impl/tls.py`) and the event loop of every other
listener; `public_http2` (dated) decides whether `h2` is offered at all.

`PublicTlsServer` quacks like the uvicorn servers `server.py` runs (`serve(sockets=...)`,
`started`, `should_exit`), so the launcher treats it as one more listener.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.public.h2_limit import InFlightLimit
from reference_impl.tls import CertFiles

SURFACE = "public_tls"
LOG = logging.getLogger(__name__)


class PublicTlsServer:
    """hypercorn serving one ASGI app on one pre-bound socket, until `should_exit` is set."""

    def __init__(self, ctx: ServerContext, app: Any, certificate: CertFiles) -> None:
        self.app: Any = InFlightLimit(app, int(ctx.profile.max_connections))
        self.certificate = certificate
        self.http2 = bool(ctx.profile.public_http2)
        self.max_header_bytes = int(ctx.profile.max_header_bytes)
        self.header_timeout = float(ctx.profile.header_timeout_s)
        self.max_streams = int(ctx.profile.h2_max_concurrent_streams)
        self.send_idle_timeout = float(ctx.profile.send_idle_timeout_s)
        self.started = False
        self._stop = asyncio.Event()

    @property
    def should_exit(self) -> bool:
        return self._stop.is_set()

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        if value:
            self._stop.set()

    def config(self, sock: socket.socket) -> Any:
        from hypercorn.config import Config

        config = Config()
        # hypercorn adopts the descriptor (fd://): detach it so that only hypercorn closes it
        config.bind = [f"fd://{sock.detach()}"]
        config.certfile = str(self.certificate.cert)
        config.keyfile = str(self.certificate.key)
        config.alpn_protocols = ["h2", "http/1.1"] if self.http2 else ["http/1.1"]
        config.accesslog = None
        config.loglevel = "WARNING"
        config.graceful_timeout = 1.0
        # the same input bounds as the uvicorn listeners (reference_impl/guarded_http.py):
        # hypercorn's idle timer runs until a request's header block is complete, so the
        # keep-alive timeout is also the header timeout; h11 refuses a longer header block
        config.keep_alive_timeout = self.header_timeout
        config.h11_max_incomplete_size = self.max_header_bytes
        config.h2_max_header_list_size = self.max_header_bytes
        config.h2_max_concurrent_streams = self.max_streams
        return config

    async def serve(self, sockets: list[socket.socket]) -> None:
        from hypercorn.asyncio import serve

        from reference_impl.public import h2_buffer, h2_events, tls_send

        # a client that never reads must not make the app buffer a blob, nor hold it for ever
        h2_buffer.install(stall_timeout=self.send_idle_timeout)
        # nor hold a connection (HTTP/1.1 too) whose writes wait for it for ever
        tls_send.install(self.send_idle_timeout)
        # nor end its connection by sending body bytes after the answer
        h2_events.install()
        config = self.config(sockets[0])
        # the socket already listens, so connections queue until hypercorn accepts them
        self.started = True
        await serve(_StallEnds(self.app), config, shutdown_trigger=self._stop.wait, mode="asgi")


class _StallEnds:
    """The app, ended quietly when its client stopped taking the reply (`SendStalled`): hypercorn
    would log it as an application error; the stream is closed, the connection closes when idle."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from reference_impl.public.h2_buffer import SendStalled

        try:
            await self.app(scope, receive, send)
        except* SendStalled:
            LOG.info("HTTP/2 reply dropped: its client took nothing for the send idle timeout")
