"""CORS on the S3 endpoint: preflight answers (OPTIONS) and headers on actual responses.

A preflight is never authenticated (browsers send none), so it finds the bucket from the Host
or the path itself; signing query parameters of a presigned URL are simply not looked at.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import Response

from reference_impl import offload
from reference_impl.context import ServerContext
from reference_impl.s3.call import Call, _parse_host, keys_of
from reference_impl.s3.cors import KIND
from reference_impl.s3.cors_patterns import CompiledRules
from reference_impl.wire.s3.errors import S3Error

VARY = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"


def treat_as_signed(ctx: ServerContext, request: Request) -> bool:
    """Sensitivity runs only: a preflight to a presigned URL checked as a signed request."""
    signed = "X-Amz-Signature" in request.query_params
    return bool(ctx.profile.deviations.cors_preflight_signed) and signed


# a configuration with more patterns is compiled and matched on a worker, not on the loop
INLINE_PATTERNS = 2000
INLINE_CHARS = 64 * 1024  # S3's own limit on a CORS configuration: compiled in place
# compiled configurations, most recently used last; bounded by the size of their stored text
CACHE_BUDGET_CHARS = 8 * 1024 * 1024
CacheKey = tuple[int, str, str, bool]  # (store, account, bucket, header case folding)
# key -> (store's config generation when last checked, stored text, compiled rules)
_CACHE: OrderedDict[CacheKey, tuple[int, str, CompiledRules]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
# compilations running on the worker: requests arriving meanwhile wait for the same one
_COMPILING: dict[CacheKey, tuple[str, asyncio.Future[CompiledRules | None]]] = {}


def find_rule(
    ctx: ServerContext,
    rules: list[dict[str, Any]],
    origin: str,
    method: str,
    headers: list[str] | None = None,
) -> dict[str, Any] | None:
    """The first rule allowing origin, method and (for a preflight) every requested header."""
    fold = bool(ctx.profile.cors_allowed_headers_case_insensitive)
    return CompiledRules(rules, fold).find(origin, method, headers)


async def find_allowed(
    ctx: ServerContext,
    account: str,
    bucket: str,
    origin: str,
    method: str,
    headers: list[str] | None = None,
) -> dict[str, Any] | None:
    """The bucket's first rule allowing the request (None: no CORS or no rule allows it)."""
    compiled = await compiled_rules(ctx, account, bucket)
    if compiled is None:
        return None
    if compiled.size <= INLINE_PATTERNS:
        return compiled.find(origin, method, headers)
    return await offload.run("patterns", compiled.find, origin, method, headers)


def _forget(key: CacheKey, job: asyncio.Future[CompiledRules | None]) -> None:
    if key in _COMPILING and _COMPILING[key][1] is job:
        del _COMPILING[key]


def _compile(raw: str, fold: bool) -> CompiledRules | None:
    rules = json.loads(raw)
    return CompiledRules(rules, fold) if rules else None


async def compiled_rules(ctx: ServerContext, account: str, bucket: str) -> CompiledRules | None:
    """The bucket's CORS rules, compiled once per stored configuration (None: no CORS).

    While no configuration of the store changed (its `config_generation`), an entry is used
    without reading the configuration again (3.5 MB of JSON text a request, otherwise); after
    a change the stored text decides: a changed or deleted configuration never matches an old
    entry. Entries are dropped least recently used first once their texts exceed
    `CACHE_BUDGET_CHARS`; a configuration larger than that is compiled per call.
    """
    store = ctx.store
    generation = store.config_generation
    fold = bool(ctx.profile.cors_allowed_headers_case_insensitive)
    key = (id(store), account, bucket, fold)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0] == generation:
            _CACHE.move_to_end(key)
            return hit[2]
    raw = store.get_bucket_config_text(account, bucket, KIND)
    if raw is None:
        return None
    with _CACHE_LOCK:
        if hit is not None and hit[1] == raw:
            _CACHE[key] = (generation, raw, hit[2])
            _CACHE.move_to_end(key)
            return hit[2]
    if len(raw) <= INLINE_CHARS:
        compiled = _compile(raw, fold)
    else:
        running = _COMPILING.get(key)
        if running is None or running[0] != raw:
            job = asyncio.ensure_future(offload.run("patterns", _compile, raw, fold))
            running = _COMPILING[key] = (raw, job)
            job.add_done_callback(lambda done: _forget(key, done))
        compiled = await asyncio.shield(running[1])
    if compiled is None:
        return None
    with _CACHE_LOCK:
        _CACHE[key] = (generation, raw, compiled)
        _CACHE.move_to_end(key)
        while sum(len(text) for _, text, _ in _CACHE.values()) > CACHE_BUDGET_CHARS:
            _CACHE.popitem(last=False)
    return compiled


def _allow_origin(rule: dict[str, Any], origin: str) -> str:
    return "*" if rule["origins"] == ["*"] else origin


def _bucket_of(ctx: ServerContext, request: Request) -> tuple[str, str | None]:
    """(account, bucket) of an unauthenticated request: virtual-hosted Host, else the path."""
    account, bucket = _parse_host(request.headers.get("host", ""), keys_of(ctx))
    raw_path = request.scope.get("raw_path", b"").decode("latin-1") or request.url.path
    path = unquote(raw_path.split("?", 1)[0])
    if bucket is None and account is None:
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
    if rule["max_age"] is not None:
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
    if rule["max_age"] is not None:
        headers["Access-Control-Max-Age"] = str(rule["max_age"])
    _expose(ctx, rule, headers)
    response.headers.update(headers)
    return response
