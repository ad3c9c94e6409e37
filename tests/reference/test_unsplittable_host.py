"""A Host that no URL can hold is a 400 on every listener, never a 500 (hostile round 10).

Starlette builds `request.url` from Host, and `urlsplit` raises ValueError for a bracketed
host that is not an IP address or for a lone bracket: the S3 error answer, the management
API's router and the edge surface read `request.url.path`, so each such Host was a 500
(`[:::]` on S3 even reached the handler: the Host parser took any hex and colons in brackets).
RFC 9112 section 3.2: a server MUST answer 400 to a request whose Host is invalid.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from reliability.rawhttp import connect, read_until_closed, statuses

from reference_impl.services.domains import MalformedHost, normalise_host

HOSTS = ["[:::]", "[1::2::3]", "[]", "[::1", "::1]"]
REQUESTS = {
    "s3": ("endpoint", "GET /some-bucket/key"),
    "public": ("url", "GET /key"),
    "mgmt": ("base_url", "GET /client/v4/accounts/x/r2/buckets"),
    "edge": ("url", "GET /"),
    "gateway": ("url", "POST /v1/sepolia"),
    "bindings": ("url", "GET /"),
    "s3_tls": ("endpoint", "GET /some-bucket/key"),
    "public_tls": ("url", "GET /key"),
}


def _status(url: str, line: str, host: str) -> int:
    sock = connect(url)
    try:
        head = f"{line} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        sock.sendall(head.encode("latin-1"))
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    codes = statuses(raw)
    assert len(codes) == 1, raw[:300]
    return codes[0]


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("surface", sorted(REQUESTS))
def test_unsplittable_host_is_400(reference: Any, surface: str, host: str) -> None:
    key, line = REQUESTS[surface]
    url = reference.ready["surfaces"][surface][key]
    assert _status(url, line, host) == 400


@pytest.mark.parametrize("host", ["[:::]", "[1::2::3]", "[::g]", "[]"])
def test_normalise_host_refuses_a_bracketed_non_ipv6(host: str) -> None:
    with pytest.raises(MalformedHost):
        normalise_host(host)


def test_normalise_host_keeps_ipv6_literals() -> None:
    assert normalise_host("[::1]:8080") == "[::1]"
    assert normalise_host("[::FFFF:1.2.3.4]") == "[::ffff:1.2.3.4]"
