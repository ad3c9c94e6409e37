"""Answer 400 to a Host the surface behind would misread, before any handler reads the URL.

Starlette builds `request.url` as `http://<Host><path>?<query>` and `urlsplit` (Python
3.11.4+) raises ValueError for a bracketed host that is not an IP address (`[:::]`, `[]`) or a
lone bracket (`[::1`, `::1]`): each handler that read `request.url.path` (the S3 error answer,
the management API's router, the edge surface) turned such a Host into a 500. A Host holding
`/`, `?` or `#` split without error but moved the path: the management API routed
`GET /client/v4/nothing` with `Host: h/client/v4/accounts/<id>/r2/buckets?` to the bucket
list, the edge flushed its logs for `Host: h/cdn-cgi/edge-conformance/flush?` (hostile round 11).

RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without Host, with more
than one Host line, or with an invalid Host (RFC 9110 section 7.2: `uri-host [":" port]`). The
S3 and public listeners read Host themselves (`services/domains.normalise_host`) and answer
those with S3's XML InvalidArgument, so there only what their own parser never sees is
refused here (`hosts_read=True`); every other listener gets the whole rule from this wrapper,
with the same parser.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from reference_impl.plain_close import send_plain_close
from reference_impl.services.domains import MalformedHost, normalise_host

BODY = b"Bad Request: the Host header is not a valid host (RFC 9112 section 3.2)\n"


@lru_cache(maxsize=256)  # clients send the same few Host values
def url_safe(host: bytes) -> bool:
    """Whether `http://<host>/` splits as a URL, as Starlette will split it."""
    try:
        urlsplit(f"http://{host.decode('latin-1')}/")
    except ValueError:
        return False
    return True


@lru_cache(maxsize=256)
def valid_host(host: bytes) -> bool:
    """Whether the value is `uri-host [":" port]` (spaces and tabs round it allowed)."""
    try:
        normalise_host(host.decode("latin-1"))
    except MalformedHost:
        return False
    return True


def refused(hosts: Iterable[bytes], http_version: str, hosts_read: bool) -> bool:
    """Whether a request with these Host lines is answered 400 here."""
    values = list(hosts)
    if not all(url_safe(value) for value in values):
        return True
    if hosts_read:  # the surface answers the rest of RFC 9112 section 3.2 in its own format
        return False
    if len(values) > 1 or (not values and http_version == "1.1"):
        return True
    return not all(valid_host(value) for value in values)


class RefuseUnsplittableHost:
    """ASGI wrapper: 400 (connection closed) for a Host that `request.url` would fail on or be
    moved by; with `hosts_read` False, for every Host RFC 9112 section 3.2 refuses."""

    def __init__(self, app: ASGIApp, hosts_read: bool = True) -> None:
        self.app = app
        self.hosts_read = hosts_read

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and refused(
            (value for name, value in scope["headers"] if name == b"host"),
            scope.get("http_version", "1.1"),
            self.hosts_read,
        ):
            await send_plain_close(send, 400, BODY)
            return
        await self.app(scope, receive, send)
