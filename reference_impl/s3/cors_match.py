"""CORS on the S3 endpoint: preflight answers (OPTIONS) and headers on actual responses.

A preflight is never authenticated (browsers send none), so it finds the bucket from the Host
or the path itself; signing query parameters of a presigned URL are simply not looked at.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3.call import Call, _parse_host, keys_of
from reference_impl.services.cors_rules import VARY, find_allowed
from reference_impl.wire.s3.errors import S3Error


def treat_as_signed(ctx: ServerContext, request: Request) -> bool:
    """Sensitivity runs only: a preflight to a presigned URL checked as a signed request."""
    signed = "X-Amz-Signature" in request.query_params
    return bool(ctx.profile.deviations.cors_preflight_signed) and signed


def _allow_origin(rule: dict[str, Any], origin: str) -> str:
    return "*" if rule["origins"] == ["*"] else origin


def _bucket_of(ctx: ServerContext, request: Request) -> tuple[str, str | None]:
    """(account, bucket) of an unauthenticated request: virtual-hosted Host, else the path."""
    account, bucket = _parse_host(request, keys_of(ctx))
    raw_path = request.scope.get("raw_path", b"").decode("latin-1") or request.url.path
    path = unquote(raw_path.split("?", 1)[0])
    if bucket is None:  # a bare or account Host: path-style below it
        bucket = path[1:].partition("/")[0] or None
    return account or ctx.identity.account_id, bucket


async def preflight(ctx: ServerContext, request: Request) -> Response:
    """Answer a CORS preflight from the bucket's rules; 403 AccessForbidden when none allows it."""
    if not ctx.profile.s3_cors:
        raise S3Error("NotImplemented", "CORS is not supported on this endpoint")
    origin = request.headers.get("origin")
    method = request.headers.get("access-control-request-method")
    if not origin or not method:
        raise S3Error(
            "InvalidRequest",
            "Insufficient information. Origin and Access-Control-Request-Method are needed.",
        )
    account, bucket = _bucket_of(ctx, request)
    if bucket is None or ctx.store.get_bucket(account, bucket) is None:
        raise S3Error("NoSuchBucket", BucketName=bucket or "")
    wanted = [
        h.strip()
        for h in request.headers.get("access-control-request-headers", "").split(",")
        if h.strip()
    ]
    rule = await find_allowed(ctx, account, bucket, origin, method, wanted)
    if rule is None:
        raise S3Error("AccessForbidden", Method=method, ResourceType="OBJECT")
    headers = {
        "Access-Control-Allow-Origin": _allow_origin(rule, origin),
        "Access-Control-Allow-Methods": ", ".join(rule["methods"]),
        "Vary": VARY,
    }
    if wanted and ctx.profile.cors_allow_headers_on_preflight:
        headers["Access-Control-Allow-Headers"] = ", ".join(wanted)
    if rule["max_age"] is not None and not ctx.profile.deviations.cors_no_max_age:
        headers["Access-Control-Max-Age"] = str(rule["max_age"])
    _expose(ctx, rule, headers)
    return Response(status_code=200, headers=headers)


def _expose(ctx: ServerContext, rule: dict[str, Any], headers: dict[str, str]) -> None:
    if rule["expose"]:
        headers["Access-Control-Expose-Headers"] = ", ".join(rule["expose"])
    elif ctx.profile.deviations.cors_expose_when_undefined:
        headers["Access-Control-Expose-Headers"] = ""


async def decorate(ctx: ServerContext, call: Call, response: Response) -> Response:
    """Add CORS headers to an actual response whose Origin a bucket rule allows.

    No matching rule is not an error: the response goes out without CORS headers.
    """
    origin = call.header("origin")
    profile = ctx.profile
    if not origin or call.bucket is None or not profile.s3_cors:
        return response
    if call.method == "HEAD" and not profile.cors_head_object:
        return response
    rule = await find_allowed(ctx, call.account, call.bucket, origin, call.method)
    if rule is None:
        if profile.deviations.cors_403_without_match:
            raise S3Error("AccessForbidden", Method=call.method, ResourceType="OBJECT")
        return response
    headers: dict[str, str] = {
        "Access-Control-Allow-Origin": _allow_origin(rule, origin),
        "Access-Control-Allow-Methods": ", ".join(rule["methods"]),
        "Vary": "Origin",
    }
    if rule["max_age"] is not None and not ctx.profile.deviations.cors_no_max_age:
        headers["Access-Control-Max-Age"] = str(rule["max_age"])
    _expose(ctx, rule, headers)
    response.headers.update(headers)
    return response
