"""A narrow retry layer for transient network failures of idempotent requests.

A far target (a live endpoint across the internet) now and then resets a connection or sheds
load with 502, or 503/429 carrying Retry-After. Those answers say nothing about the rules under
test, so idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS) are tried again, a few times,
with backoff. Nothing else is retried: no POST, no other status, no read timeout, no body that
cannot be sent twice. Every retried attempt is recorded as evidence (its status, or the error,
and why it was retried), so a report shows what happened on the wire.

A test of a rule about such answers (a 503, a 429, a reset) must see the raw answer: it wraps
its calls in `with no_retry():`, which turns the layer off for the calls inside.
"""

from __future__ import annotations

import contextlib
import contextvars
import random
import time
from collections.abc import Iterator, Mapping
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from conformance.clients.evidence import RETRY_NOTE, Exchange, collector

IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
MAX_ATTEMPTS = 3
BACKOFF_S = 0.2  # first wait; doubles per attempt, with jitter
RETRY_AFTER_CAP_S = 5.0  # a longer Retry-After is not waited for: the answer is kept as is
RETRY_STATUSES_ANY = frozenset({502})
RETRY_STATUSES_WITH_AFTER = frozenset({503, 429})

_enabled: contextvars.ContextVar[bool] = contextvars.ContextVar("ec_retry", default=True)


@contextlib.contextmanager
def no_retry() -> Iterator[None]:
    """Calls inside see every answer raw (for tests of rules about 502/503/429 or resets)."""
    token = _enabled.set(False)
    try:
        yield
    finally:
        _enabled.reset(token)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: rare; not worth guessing the clock skew


def delay_for(
    method: str, attempt: int, status: int | None, headers: Mapping[str, str], reset: bool
) -> float | None:
    """Seconds to wait before trying again, or None to keep this answer (attempt: 1-based)."""
    if not _enabled.get() or method.upper() not in IDEMPOTENT or attempt >= MAX_ATTEMPTS:
        return None
    backoff: float = BACKOFF_S * 2.0 ** (attempt - 1) * (1 + random.random() / 2)
    if reset:
        return backoff
    if status in RETRY_STATUSES_ANY:
        return max(backoff, _retry_after(headers) or 0.0)
    if status in RETRY_STATUSES_WITH_AFTER:
        after = _retry_after(headers)
        if after is not None and after <= RETRY_AFTER_CAP_S:
            return max(after, backoff)
    return None


def record(method: str, url: str, status: int | None, headers: Any, why: str) -> None:
    collector.add(Exchange.build(method, url, status, {}, headers or {}, f"{RETRY_NOTE}{why}"))


class RetryingAdapter(HTTPAdapter):
    """A requests adapter that retries transient failures of idempotent requests."""

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        method, url = str(request.method or "GET"), str(request.url)
        replayable = request.body is None or isinstance(request.body, bytes | str)
        attempt = 1
        while True:
            try:
                response = super().send(request, *args, **kwargs)
            except requests.ConnectionError as exc:
                wait = delay_for(method, attempt, None, {}, reset=True) if replayable else None
                if wait is None:
                    raise
                record(method, url, None, {}, f"{type(exc).__name__} (attempt {attempt})")
            else:
                status, headers = response.status_code, response.headers
                wait = delay_for(method, attempt, status, headers, False) if replayable else None
                if wait is None:
                    return response
                record(method, url, status, headers, f"HTTP {status} (attempt {attempt})")
                response.close()
            time.sleep(wait)
            attempt += 1


def mount(session: requests.Session) -> requests.Session:
    """Give `session` the retrying adapter for http and https (keep-alive pools kept)."""
    for prefix in ("http://", "https://"):
        session.mount(prefix, RetryingAdapter(pool_connections=4, pool_maxsize=16))
    return session


def _boto_needs_retry(
    response: Any = None,
    attempts: int = 1,
    caught_exception: Exception | None = None,
    request_dict: Mapping[str, Any] | None = None,
    **_: Any,
) -> float | None:
    from botocore.exceptions import ConnectionClosedError, EndpointConnectionError

    method = str((request_dict or {}).get("method", "GET"))
    url = str((request_dict or {}).get("url", ""))
    if caught_exception is not None:
        reset = isinstance(caught_exception, ConnectionClosedError | EndpointConnectionError)
        wait = delay_for(method, attempts, None, {}, reset=True) if reset else None
        if wait is not None:
            why = f"{type(caught_exception).__name__} (attempt {attempts})"
            record(method, url, None, {}, why)
        return wait
    if response is None:
        return None
    http = response[0]
    wait = delay_for(method, attempts, http.status_code, dict(http.headers.items()), False)
    if wait is not None:
        record(method, url, http.status_code, dict(http.headers.items()),
               f"HTTP {http.status_code} (attempt {attempts})")  # fmt: skip
    return wait


def register_boto(client: Any) -> Any:
    """botocore's own retries stay off (they also retry 500s); this handler retries only what
    `delay_for` allows."""
    client.meta.events.register("needs-retry.s3", _boto_needs_retry)
    return client
