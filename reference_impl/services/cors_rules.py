"""A bucket's stored CORS rules, compiled once and matched: what the S3 and public surfaces share.

Both answer preflights and decorate responses from the rules PutBucketCors stored
(`reference_impl/s3/cors.py`), each with its own profile fields (`s3/cors_match.py`,
`public/cors.py`); the matching itself, and its cache, is one.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from typing import Any

from reference_impl import offload
from reference_impl.context import ServerContext
from reference_impl.services.cors_patterns import CompiledRules

KIND = "cors"  # bucket_configs kind of the stored rules
VARY = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"


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
