"""The edge surface: the zone's traffic, answered by a built-in origin and logged.

Every request (except the internal flush trigger below) is one `http_requests` record for
the reference's zone, carrying the custom fields configured through the rules API
(`ctx.shared.mgmt_state`) and delivered to the zone's log push jobs (`delivery.py`).

The built-in origin answers 200 with a JSON echo of what it received, `x-origin: reference`, two
`set-cookie` headers (so the first-instance limit can be shown), and for every request header
`x-ec-respond-<name>: <value>` a response header `<name>: <value>` (so tests choose response
header values). A fixed request-header transform rule (`x-ec-transform` is rewritten before the
origin sees it) shows that logs hold the original header, as the spec's limits require; a fixed
response-header transform rule (`x-ec-response-transform` from the origin is rewritten before
the client gets it) shows raw against transformed response fields (from 2025-04-18).
`POST /cdn-cgi/edge-conformance/flush` delivers pending batches at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Scope

from reference_impl.context import ServerContext
from reference_impl.edge.delivery import Delivery
from reference_impl.edge.records import (
    Exchange,
    LogOptions,
    base_record,
    custom_field_objects,
)
from reference_impl.storage import clock

FLUSH_PATH = "/cdn-cgi/edge-conformance/flush"
TRANSFORMED_HEADER = "x-ec-transform"
TRANSFORMED_VALUE = "rewritten-by-transform-rule"
RESPONSE_TRANSFORMED_HEADER = "x-ec-response-transform"
RESPONSE_TRANSFORMED_VALUE = "rewritten-by-response-transform-rule"
RESPOND_PREFIX = "x-ec-respond-"
# the response's framing is the server's alone: a chosen `content-length` beside the real one
# was two Content-Length headers on the wire (RFC 9110 8.6; issue 26, LOW)
FRAMING = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer"}
)
ORIGIN_COOKIES = ("ec_first=1; Path=/", "ec_second=2; Path=/")
SHUTDOWN_FLUSH_S = 5.0


def _raw_headers(request: Request) -> list[tuple[str, str]]:
    return [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in request.headers.raw]


def transform(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The zone's one (fixed) request header transform rule, applied before the origin."""
    return [(k, TRANSFORMED_VALUE if k == TRANSFORMED_HEADER else v) for k, v in headers]


def _response_headers(response: Response) -> list[tuple[str, str]]:
    return [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in response.raw_headers]


def transform_response(response: Response) -> None:
    """The zone's one (fixed) response header transform rule, applied after the origin."""
    if RESPONSE_TRANSFORMED_HEADER in response.headers:
        response.headers[RESPONSE_TRANSFORMED_HEADER] = RESPONSE_TRANSFORMED_VALUE


def origin(method: str, uri: str, headers: list[tuple[str, str]]) -> Response:
    """The built-in origin: a JSON echo plus headers chosen by the request."""
    echoed: dict[str, str] = {}
    for name, value in headers:
        echoed.setdefault(name, value)
    body = json.dumps({"method": method, "uri": uri, "headers": echoed}).encode()
    response = Response(body, status_code=200, media_type="application/json")
    response.headers["x-origin"] = "reference"
    for cookie in ORIGIN_COOKIES:
        response.headers.append("set-cookie", cookie)
    for name, value in headers:
        chosen = name[len(RESPOND_PREFIX) :]
        if name.startswith(RESPOND_PREFIX) and chosen and chosen not in FRAMING:
            response.headers.append(chosen, value)
    return response


def requested_uri(scope: Scope) -> tuple[str, str]:
    """(path, path and query) as the client sent them, percent-encoding kept.

    `request.url` re-splits `Host + decoded path`, so a path holding `%3F` or `%23` lost its
    tail: `/a%23b?c=1` was logged and echoed as `/a` (ClientRequestURI without its query,
    ClientRequestPath cut), `/a%3Fb` as `/a?b` (hostile round 12). ClientRequestPath is the
    URI's part before its first `?`, which an encoded `?` can no longer fake."""
    raw = scope.get("raw_path")
    path = raw.decode("latin-1") if raw else quote(scope["path"])
    query = scope.get("query_string", b"").decode("latin-1")
    return path, f"{path}?{query}" if query else path


def log_options(ctx: ServerContext) -> LogOptions:
    """The profile's custom-field logging at its date, with its deliberate deviations."""
    profile = ctx.profile
    limit = profile.custom_field_data_limit
    if profile.deviations.custom_data_limit:  # a lower cut, whether or not a limit is in force
        limit = profile.deviations.custom_data_limit
    if profile.deviations.no_custom_data_limit:
        limit = None
    return LogOptions(
        limit=limit,
        response_transformed=bool(profile.response_fields_transformed)
        and not profile.deviations.log_raw_response_fields,
        every_instance=bool(profile.deviations.log_every_instance),
        first_only=bool(profile.deviations.first_instance_only),
        arrays_as_defaults=bool(profile.deviations.arrays_as_defaults),
    )


class Edge:
    def __init__(self, ctx: ServerContext, delivery: Delivery) -> None:
        self.ctx = ctx
        self.delivery = delivery

    async def handle(self, request: Request) -> Response:
        # the path as sent: decoded, `flush%3Fx` (request.url) and `cdn-cgi%2F...` were the hook
        path, uri = requested_uri(request.scope)
        if path == FLUSH_PATH and request.method == "POST":
            batches = await self.delivery.flush()
            return JSONResponse({"batches": batches})
        start_ns = clock.of(self.ctx).now_ns()
        original = _raw_headers(request)
        transformed = transform(original)
        response = origin(request.method, uri, transformed)
        from_origin = _response_headers(response)
        transform_response(response)
        async for _ in request.stream():  # drain without keeping: the origin echoes headers only
            pass
        raw = transformed if self.ctx.profile.deviations.log_transformed_headers else original
        exchange = Exchange(raw, transformed, from_origin, _response_headers(response))
        logged_uri = path if self.ctx.profile.deviations.log_path_as_uri else uri
        self._log(request, logged_uri, start_ns, exchange, response)
        return response

    def _log(
        self,
        request: Request,
        uri: str,
        start_ns: int,
        exchange: Exchange,
        response: Response,
    ) -> None:
        zone_id = self.ctx.identity.zone_id
        state = self.ctx.shared.mgmt_state
        config = state.custom_fields(zone_id) if state is not None else {}
        record: dict[str, Any] = base_record(
            ray_id=secrets.token_hex(8),
            start_ns=start_ns,
            end_ns=clock.of(self.ctx).now_ns(),
            host=request.headers.get("host", ""),
            method=request.method,
            uri=uri,
            status=response.status_code,
            client_ip=self._client_ip(request),
        )
        record.update(custom_field_objects(config, exchange, log_options(self.ctx)))
        if self.ctx.profile.deviations.lowercase_logged_cookies and "Cookies" in record:
            record["Cookies"] = {k.lower(): v for k, v in record["Cookies"].items()}
        for name in self.ctx.profile.deviations.drop_record_fields or ():
            record.pop(name, None)
        self.delivery.add(zone_id, record)

    def _client_ip(self, request: Request) -> str:
        """The peer's IP address (with its port under the deviation that logs the address)."""
        if request.client is None:
            return ""
        if self.ctx.profile.deviations.log_client_address_with_port:
            return f"{request.client.host}:{request.client.port}"
        return request.client.host


def build_app(ctx: ServerContext) -> Starlette:
    delivery = Delivery(ctx)
    ctx.shared.log_delivery = delivery
    edge = Edge(ctx, delivery)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(delivery.run())
        try:
            yield
        finally:
            task.cancel()
            # shutting down: a batch that cannot go out has nowhere left to be reported
            with contextlib.suppress(Exception):  # bounded: a slow collector cannot hold exit
                await asyncio.wait_for(delivery.flush(), SHUTDOWN_FLUSH_S)
            await delivery.cancel()

    methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
    return Starlette(
        routes=[Route("/{path:path}", edge.handle, methods=methods)], lifespan=lifespan
    )
