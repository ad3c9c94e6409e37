"""The gateway surface: `POST /v1/<network>` with a JSON-RPC 2.0 body.

HTTP statuses: 200 with a JSON-RPC body (errors included), 204 when only notifications were
sent, 403 for a single request of an unsupported method (-32601), 404 for an unknown network,
410 for a retired one, 405/413/415 for requests that are not JSON-RPC over POST, and 501 for a
body in a transfer coding other than chunked (RFC 9112 section 6.1: the listener does not undo
it, so the bytes are not the JSON the client sent); every non-204 answer carries a JSON-RPC
error object. Never a 500.
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reference_impl import jsonbody, numbers, transfer_codings
from reference_impl.context import ServerContext
from reference_impl.gateway.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    SERVER_ERROR,
    RpcError,
)
from reference_impl.gateway.jsonrpc import handle, valid_id
from reference_impl.gateway.service import Gateway, Network

JSON = "application/json"


class _TooLarge(Exception):
    pass


def build_app(ctx: ServerContext) -> Starlette:
    gateway = Gateway(ctx)
    prof = ctx.profile

    def reply(doc: Any, status: int = 200) -> Response:
        if doc is None:
            return Response(status_code=204)
        try:
            body = json.dumps(doc, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            err = RpcError(INTERNAL_ERROR, "internal error: result not serialisable")
            body = json.dumps(gateway.envelope.error(None, err))
        return Response(body, status_code=status, media_type=JSON)

    def refuse(status: int, err: RpcError, req_id: Any = None) -> Response:
        return reply(gateway.envelope.error(req_id, err), status)

    async def read_body(request: Request) -> bytes:
        limit = int(gateway.limits["max_body_bytes"])
        declared = request.headers.get("content-length", "")
        if declared and (not numbers.is_decimal(declared) or int(declared) > limit):
            raise _TooLarge
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    async def network_refusal(name: str, net: Network | None, body: bytes) -> Response:
        req_id = await _single_id(body)
        if net is None:
            status = prof.deviations.unknown_network_status or 404
            known = ", ".join(n for n, v in gateway.networks.items() if v.served)
            err = RpcError(
                SERVER_ERROR,
                f"unknown network {name[:60]!r}; served: {known}",
                {"network": name[:60]},
            )
            return refuse(int(status), err, req_id)
        status = prof.deviations.retired_status or 410
        message = f"network {name!r} is retired and no longer supported"
        data: dict[str, Any] = {"network": name}
        if net.replacement:
            message += f"; use {net.replacement} instead: POST /v1/{net.replacement}"
            data["replacement"] = net.replacement
        return refuse(int(status), RpcError(SERVER_ERROR, message, data), req_id)

    async def rpc(request: Request) -> Response:
        name = request.path_params["network"]
        ctype = request.headers.get("content-type", "")
        media = ctype.split(";")[0].strip().lower()
        if (media and media != JSON and not media.endswith("+json")) or (
            prof.deviations.require_no_content_type and media == JSON
        ):
            return refuse(415, RpcError(INVALID_REQUEST, f"unsupported content type {ctype!r:.60}"))
        sent = request.headers.getlist("transfer-encoding")
        if transfer_codings.unapplied(sent):
            message = f"Transfer-Encoding {', '.join(sent)!r:.60} is not supported: chunked only"
            return refuse(501, RpcError(INVALID_REQUEST, message))
        try:
            body = await read_body(request)
        except _TooLarge:
            return refuse(413, RpcError(INVALID_REQUEST, "invalid request: body too large"))
        net = gateway.networks.get(name)
        if net is None or not net.served:
            return await network_refusal(name, net, body)
        # NaN / Infinity are not JSON (RFC 8259): -32700 like any other non-JSON text. So is an
        # object that repeats a name: which copy counts is the parser's (RFC 8259 section 4),
        # so none is run (a reference choice, docs/decisions.md Area B; JSON-RPC is silent)
        try:
            doc = await jsonbody.loads_bounded(body, int(gateway.limits["max_depth"]), True)
        except jsonbody.JsonBodyError as exc:
            return refuse(200, RpcError(PARSE_ERROR, f"parse error: {exc}"))

        deadline = time.monotonic() + float(prof.gateway_batch_budget_s)  # the whole batch's

        async def dispatch(method: str, params: Any) -> Any:
            return await gateway.dispatch(net, method, params, deadline)

        answer = await handle(doc, dispatch, gateway.envelope, int(gateway.limits["max_batch"]))
        if prof.deviations.internal_errors and _has_code(answer, INVALID_PARAMS):
            return Response("Internal Server Error", status_code=500, media_type="text/plain")
        if isinstance(answer, dict) and _has_code(answer, METHOD_NOT_FOUND):
            # the provider documents 403 for an unsupported method (dates.md, "Other facts");
            # in a batch the other entries still need their 200, so only single requests
            return reply(answer, int(prof.deviations.unsupported_method_status or 403))
        return reply(answer)

    async def not_post(request: Request) -> Response:
        return refuse(405, RpcError(INVALID_REQUEST, "JSON-RPC requests are sent with POST"))

    async def not_found(request: Request) -> Response:
        return refuse(404, RpcError(INVALID_REQUEST, "not found: POST /v1/<network>"))

    methods = ["GET", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
    return Starlette(
        routes=[
            Route("/v1/{network}", rpc, methods=["POST"]),
            Route("/v1/{network}", not_post, methods=methods),
            Route("/{path:path}", not_found, methods=["POST", *methods]),
        ]
    )


async def _single_id(body: bytes) -> Any:
    """The id of a single request body, so refusals still echo it; None when there is none."""
    try:
        doc = await jsonbody.loads_bounded(body, 64)
    except jsonbody.JsonBodyError:
        return None
    if isinstance(doc, dict) and valid_id(doc.get("id")):
        return doc.get("id")
    return None


def _has_code(answer: Any, code: int) -> bool:
    items = answer if isinstance(answer, list) else [answer]
    return any(isinstance(i, dict) and (i.get("error") or {}).get("code") == code for i in items)
