"""The bindings bridge: `POST /bridge {op, bucket, args, compat}` -> `{result}` or `{error}`.

The protocol (docs/bindings-bridge.md, schema conformance/schemas/bindings_bridge.schema.json) is
how the suite reaches a runtime binding over HTTP; a small worker speaks the same protocol over a
real binding for other implementations. Refusals of the binding are HTTP 200 with
`{error: {name, message}}`; a malformed bridge request is 400 `BridgeError` (413 when too large);
a request without the bridge's bearer token is 401 `BridgeAuthError`; anything unexpected is
500 `InternalError`, which the suite counts against the binding.
"""

from __future__ import annotations

import datetime as dt
import hmac
import re
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from reference_impl import jsonbody
from reference_impl.bindings import bridge_json, multipart
from reference_impl.bindings.base64_body import decode_body
from reference_impl.bindings.bucket import BindingBucket, Compat
from reference_impl.bindings.errors import BindingError, InternalError
from reference_impl.bindings.provision import provision_bound_bucket
from reference_impl.bindings.streamed import streamed_reply
from reference_impl.context import ServerContext

PROTOCOL = {"protocol": "edge-conformance-bindings-bridge", "version": 1}
BUCKET_NAME = re.compile(r"\A[a-z0-9][a-z0-9-]{1,61}[a-z0-9]\Z")
Handler = Callable[[BindingBucket, dict[str, Any]], Awaitable[Any]]


def _opts(args: dict[str, Any]) -> dict[str, Any]:
    options = args.get("options") or {}
    if not isinstance(options, dict):
        raise BindingError("TypeError", "options must be an object")
    return options


async def _put(bucket: BindingBucket, args: dict[str, Any]) -> Any:
    value = await decode_body(args.get("value"), "put")
    return await bucket.put(args.get("key"), value, _opts(args))


async def _upload_part(bucket: BindingBucket, args: dict[str, Any]) -> Any:
    value = await decode_body(args.get("value"), "uploadPart")
    key, upload_id, number = args.get("key"), args.get("uploadId"), args.get("partNumber")
    return await multipart.upload_part(bucket, key, upload_id, number, value)


OPS: dict[str, Handler] = {
    "put": _put,
    "get": lambda b, a: b.get(a.get("key"), _opts(a)),
    "head": lambda b, a: b.head(a.get("key")),
    "delete": lambda b, a: b.delete(a.get("keys")),
    "list": lambda b, a: b.list(_opts(a)),
    "createMultipartUpload": lambda b, a: multipart.create(b, a.get("key"), _opts(a)),
    "uploadPart": _upload_part,
    "completeMultipartUpload": lambda b, a: multipart.complete(
        b, a.get("key"), a.get("uploadId"), a.get("parts")
    ),
    "abortMultipartUpload": lambda b, a: multipart.abort(b, a.get("key"), a.get("uploadId")),
}


class BridgeRequestError(ValueError):
    """The request is not a bridge request (400): a suite or client bug, not a binding refusal."""


def _compat(doc: dict[str, Any], default: dt.date) -> Compat:
    compat = doc.get("compat") or {}
    if not isinstance(compat, dict):
        raise BridgeRequestError("compat must be an object {date, flags}")
    try:
        date = dt.date.fromisoformat(compat["date"]) if compat.get("date") else default
    except (TypeError, ValueError):
        raise BridgeRequestError(f"compat.date {compat.get('date')!r} is not YYYY-MM-DD") from None
    flags = compat.get("flags") or []
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise BridgeRequestError("compat.flags must be a list of strings")
    return Compat(date, frozenset(flags))


async def _parse(body: bytes, max_depth: int) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    try:
        doc = await bridge_json.load_request(body, max_depth)
    except jsonbody.JsonBodyError as exc:
        raise BridgeRequestError(str(exc)) from None
    if not isinstance(doc, dict):
        raise BridgeRequestError("body must be a JSON object {op, bucket, args, compat}")
    op, bucket, args = doc.get("op"), doc.get("bucket"), doc.get("args") or {}
    if op not in OPS:
        raise BridgeRequestError(f"unknown op {op!r}; ops: {', '.join(OPS)}")
    if not isinstance(bucket, str) or not BUCKET_NAME.match(bucket):
        raise BridgeRequestError(f"bucket {bucket!r} is not a bucket name")
    if not isinstance(args, dict):
        raise BridgeRequestError("args must be an object")
    return op, bucket, args, doc


def _error(status: int, name: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"name": name, "message": message}}, status_code=status)


def authorised(request: Request, token: str) -> bool:
    """The request carries `Authorization: Bearer <token>` (compared in constant time)."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


def build_app(ctx: ServerContext) -> Starlette:
    token = ctx.identity.bindings_token
    prof = ctx.profile

    async def bridge(request: Request) -> Response:
        if not authorised(request, token):
            message = "the bridge takes Authorization: Bearer <token> (the ready file's bindings)"
            return _error(401, "BridgeAuthError", message)
        try:
            declared = request.headers.get("content-length", "")
            limit = int(prof.bindings_max_body_bytes)
            body = await jsonbody.read_limited(request.stream(), declared, limit)
        except jsonbody.JsonBodyError as exc:
            return _error(413, "BridgeError", str(exc))
        try:
            op, name, args, doc = await _parse(body, int(prof.max_json_depth))
            provision_bound_bucket(ctx, name)
            bucket = BindingBucket(ctx, name, _compat(doc, ctx.behaviour_date), op)
            result = await OPS[op](bucket, args)
        except BridgeRequestError as exc:
            return _error(400, "BridgeError", str(exc))
        except BindingError as exc:
            return JSONResponse({"error": exc.as_dict()})
        except InternalError as exc:
            return _error(500, "InternalError", f"internal error: {exc}")
        except Exception as exc:  # a bug of the reference: the suite must see it as one
            return _error(500, "InternalError", f"internal error: {type(exc).__name__}: {exc}")
        if isinstance(result, dict) and (streamed := streamed_reply(result)) is not None:
            return streamed
        return JSONResponse({"result": result})

    async def hello(request: Request) -> JSONResponse:
        return JSONResponse(PROTOCOL)

    return Starlette(routes=[Route("/bridge", bridge, methods=["POST"]), Route("/", hello)])
