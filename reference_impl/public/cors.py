"""CORS on public buckets: preflights and response headers from the bucket's own CORS rules.

The rules are the ones PutBucketCors stored (`reference_impl.s3.cors`), matched the same way
as on the S3 endpoint (`cors_rules.find_allowed`); the public entrypoint has its own profile
fields so that each surface's behaviour can be made to deviate on its own.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.services.cors_rules import VARY, find_allowed
from reference_impl.wire.s3.errors import S3Error


def _allow_origin(origins: list[str], origin: str) -> str:
    return "*" if origins == ["*"] else origin


def _expose(ctx: ServerContext, expose: list[str], headers: dict[str, str]) -> None:
    if expose:
        headers["Access-Control-Expose-Headers"] = ", ".join(expose)
    elif ctx.profile.deviations.public_expose_when_undefined:
        headers["Access-Control-Expose-Headers"] = ""


async def preflight(ctx: ServerContext, request: Request, account: str, bucket: str) -> Response:
    """Answer an OPTIONS carrying Origin: 200 with the rule's grant, else 403 AccessForbidden."""
    origin = request.headers["origin"]
    method = request.headers.get("access-control-request-method")
    if not method:
        raise S3Error(
            "InvalidRequest",
            "Insufficient information. Origin and Access-Control-Request-Method are needed.",
        )
    wanted = [
        h.strip()
        for h in request.headers.get("access-control-request-headers", "").split(",")
        if h.strip()
    ]
    rule = None
    if ctx.profile.public_cors:
        rule = await find_allowed(ctx, account, bucket, origin, method, wanted)
    if rule is None:
        raise S3Error("AccessForbidden", Method=method, ResourceType="OBJECT")
    headers = {
        "Access-Control-Allow-Origin": _allow_origin(rule["origins"], origin),
        "Access-Control-Allow-Methods": ", ".join(rule["methods"]),
        "Vary": VARY,
    }
    if wanted and not ctx.profile.deviations.public_no_allow_headers:
        headers["Access-Control-Allow-Headers"] = ", ".join(wanted)
    if rule["max_age"] is not None and not ctx.profile.deviations.cors_no_max_age:
        headers["Access-Control-Max-Age"] = str(rule["max_age"])
    _expose(ctx, rule["expose"], headers)
    return Response(status_code=200, headers=headers)


async def decorate(
    ctx: ServerContext, request: Request, account: str, bucket: str, response: Response
) -> Response:
    """CORS headers on an actual response whose Origin a rule allows; no match is not an error."""
    origin = request.headers.get("origin")
    if not origin or not ctx.profile.public_cors:
        return response
    rule = await find_allowed(ctx, account, bucket, origin, request.method)
    if rule is None:
        if ctx.profile.deviations.public_cors_403_without_match:
            raise S3Error("AccessForbidden", Method=request.method, ResourceType="OBJECT")
        return response
    headers = {
        "Access-Control-Allow-Origin": _allow_origin(rule["origins"], origin),
        "Access-Control-Allow-Methods": ", ".join(rule["methods"]),
        "Vary": "Origin",
    }
    _expose(ctx, rule["expose"], headers)
    response.headers.update(headers)
    return response
