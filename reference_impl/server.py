"""Runs every surface of the reference on loopback listeners in one asyncio event loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

import uvicorn

from reference_impl.atomic_file import replace_file
from reference_impl.body_guard import BodySlots
from reference_impl.context import ServerContext
from reference_impl.durable_replies import DurableReplies
from reference_impl.early_answer import CloseUnreadBodies
from reference_impl.guarded_http import GuardedHttpTools, guarded_protocol
from reference_impl.header_bound import BoundHeaderBlock
from reference_impl.host_guard import RefuseUnsplittableHost
from reference_impl.public.h2 import SURFACE as PUBLIC_TLS
from reference_impl.public.h2 import PublicTlsServer
from reference_impl.quiet_disconnect import QuietDisconnects
from reference_impl.tls import ensure_certificate

# surface name -> module providing `build_app(ctx) -> ASGI app`
SURFACES: dict[str, str] = {
    "s3": "reference_impl.s3.app",
    "mgmt": "reference_impl.mgmt.app",
    "gateway": "reference_impl.gateway.app",
    "public": "reference_impl.public.app",
    "edge": "reference_impl.edge.app",  # after mgmt: reads its state (custom fields, jobs)
    "bindings": "reference_impl.bindings.app",  # runtime bindings bridge (docs/bindings-bridge.md)
}
# surfaces that parse Host themselves (a bucket or custom domain is named there) and answer a
# malformed one in S3's XML; the others get RFC 9112 section 3.2 whole from host_guard.py
HOST_READERS = frozenset({SURFACES["s3"], SURFACES["public"]})
# extra listener: the S3 API again, over TLS with a generated certificate (reference_impl/tls.py)
TLS_SURFACE = "s3_tls"


class _QuietServer(uvicorn.Server):
    """uvicorn server that leaves signal handling to us: several run in one loop."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _protocol(ctx: ServerContext) -> type[GuardedHttpTools]:
    """Every uvicorn listener's HTTP protocol: httptools with header and body size and time
    bounded; the body slots are one pool for the whole process (docs/architecture.md)."""
    slots = ctx.shared.body_slots
    if slots is None:
        slots = ctx.shared.body_slots = BodySlots(
            int(ctx.profile.max_body_streams), int(ctx.profile.max_body_streams_per_client)
        )
    prof = ctx.profile
    return guarded_protocol(
        prof.max_header_bytes,
        prof.header_timeout_s,
        body_idle_timeout=float(prof.body_idle_timeout_s),
        body_min_rate=float(prof.body_min_rate_bps),
        body_slots=slots,
        send_idle_timeout=float(prof.send_idle_timeout_s),
    )


def _listener_config(ctx: ServerContext, app: Any, **extra: Any) -> uvicorn.Config:
    """One uvicorn listener: guarded protocol, idle keep-alive and connection count bounded."""
    return uvicorn.Config(
        app,
        http=_protocol(ctx),
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_keep_alive=int(ctx.profile.keepalive_timeout_s),
        limit_concurrency=int(ctx.profile.max_connections),
        ws="none",  # no surface speaks WebSocket; "auto" imports a library for nothing
        proxy_headers=False,  # no proxy in front: X-Forwarded-* is the client's own header
        **extra,
    )


def _bind(host: str, port: int) -> socket.socket:
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only when the proto says
    # TCP; with 0 every small response waited ~40 ms for the peer's delayed ACK (Nagle).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def ready_document(ctx: ServerContext) -> dict[str, Any]:
    """The ready file: every surface in the same shape as a resolved target definition."""
    ident = ctx.identity
    mgmt_base = ctx.urls["mgmt"] + "/client/v4"
    doc: dict[str, Any] = {
        "pid": os.getpid(),
        "behaviour_date": ctx.behaviour_date.isoformat(),
        "profile_overrides": ctx.profile.overrides,
        "data_dir": str(ctx.data_dir),
        "durable_replies": ctx.durable_replies,
        "surfaces": {
            "s3": {
                "endpoint": ctx.urls["s3"],
                "access_key_id": ident.access_key_id,
                "secret_access_key": ident.secret_access_key,
                "region": "auto",
                "account_id": ident.account_id,
                "vendor_prefix": "x-amz-",
                "ext_prefix": "cf-",
                "second_account": {
                    "account_id": ident.other_account_id,
                    "access_key_id": ident.other_access_key_id,
                    "secret_access_key": ident.other_secret_access_key,
                },
            },
            "rules_api": {
                "base_url": mgmt_base,
                "email": ident.email,
                "api_key": ident.api_key,
                "zone_id": ident.zone_id,
            },
            "mgmt": {
                "base_url": mgmt_base,
                "email": ident.email,
                "api_key": ident.api_key,
                "account_id": ident.account_id,
            },
            "gateway": {"url": ctx.urls["gateway"], "networks": ["sepolia", "rinkeby"]},
            "public": {"url": ctx.urls["public"]},
            "edge": {"url": ctx.urls["edge"]},
            "bindings": {"url": ctx.urls["bindings"], "token": ident.bindings_token},
        },
    }
    if PUBLIC_TLS in ctx.urls:  # the public entrypoint again, over TLS with HTTP/2 (ALPN)
        doc["surfaces"][PUBLIC_TLS] = {
            "url": ctx.urls[PUBLIC_TLS],
            "verify": ctx.shared.tls_cert,
        }
    doc["surfaces"].update(ctx.shared.extra_surfaces)  # e.g. migration_source
    if TLS_SURFACE in ctx.urls:
        doc["surfaces"][TLS_SURFACE] = {
            **doc["surfaces"]["s3"],
            "endpoint": ctx.urls[TLS_SURFACE],
            "verify": ctx.shared.tls_cert,
        }
    return doc


def surface_app(module_name: str, ctx: ServerContext) -> Any:
    """A surface's ASGI app; with `--durable`, replies wait until what they report is on disk.

    Every surface closes a connection whose `100-continue` body it answered without reading,
    answers 400 to a Host it would misread (host_guard.py; S3 and public parse Host) and 431
    to a header block past the bound however it arrived (header_bound.py).
    """
    hosts_read = module_name in HOST_READERS
    app: Any = RefuseUnsplittableHost(import_module(module_name).build_app(ctx), hosts_read)
    app = BoundHeaderBlock(app, int(ctx.profile.max_header_bytes))  # one read held it whole
    if ctx.durable_replies:
        app = DurableReplies(app, ctx)
    if ctx.profile.deviations.early_answer_keeps_open:  # break-checks only
        return QuietDisconnects(app)
    return QuietDisconnects(CloseUnreadBodies(app))


def _write_atomically(path: Path, text: str) -> None:
    """Owner-only (0600): the ready file carries the bindings bridge token."""
    replace_file(path, text.encode("utf-8"), private=True)


async def serve(
    ctx: ServerContext,
    host: str,
    base_port: int,
    ready_file: Path | None,
    announce: Callable[[dict[str, Any]], None] | None = None,
    tls: bool = True,
) -> None:
    servers: list[tuple[_QuietServer | PublicTlsServer, socket.socket]] = []
    for offset, (name, module_name) in enumerate(SURFACES.items()):
        sock = _bind(host, base_port + offset if base_port else 0)
        ctx.urls[name] = f"http://{host}:{sock.getsockname()[1]}"
        app = surface_app(module_name, ctx)
        config = _listener_config(ctx, app)
        servers.append((_QuietServer(config), sock))
    certificate = ensure_certificate(ctx.data_dir / "tls") if tls else None
    if certificate is not None:
        sock = _bind(host, base_port + len(SURFACES) if base_port else 0)
        ctx.urls[TLS_SURFACE] = f"https://{host}:{sock.getsockname()[1]}"
        ctx.shared.tls_cert = str(certificate.cert)
        config = _listener_config(
            ctx,
            surface_app(SURFACES["s3"], ctx),
            ssl_certfile=str(certificate.cert),
            ssl_keyfile=str(certificate.key),
        )
        servers.append((_QuietServer(config), sock))
        sock = _bind(host, base_port + len(SURFACES) + 1 if base_port else 0)
        ctx.urls[PUBLIC_TLS] = f"https://{host}:{sock.getsockname()[1]}"
        public_app = surface_app(SURFACES["public"], ctx)
        servers.append((PublicTlsServer(ctx, public_app, certificate), sock))

    loop = asyncio.get_running_loop()

    def stop() -> None:
        for server, _ in servers:
            server.should_exit = True

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)

    tasks = [asyncio.create_task(server.serve(sockets=[sock])) for server, sock in servers]
    while not all(server.started for server, _ in servers):
        if any(task.done() for task in tasks):
            break
        await asyncio.sleep(0.01)
    if all(server.started for server, _ in servers):
        doc = ready_document(ctx)
        if ready_file is not None:
            _write_atomically(ready_file, json.dumps(doc, indent=2))
        if announce is not None:
            announce(doc)
    try:
        await asyncio.gather(*tasks)
    finally:
        if ctx.store is not None:
            ctx.store.close()
    if any(task.exception() for task in tasks if task.done() and not task.cancelled()):
        sys.exit(1)
