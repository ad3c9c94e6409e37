"""A Host header never chooses the route: the listeners that ignore Host answer 400 to one that is
not `uri-host [":" port]` (hostile round 11).

Starlette builds `request.url` as `http://<Host><path>?<query>`, and the management API and the
edge surface route on `request.url.path`. A Host holding `/`, `?` or `#` therefore moved the
path: `GET /client/v4/nothing` with `Host: h/client/v4/accounts/<id>/r2/buckets?` listed the
buckets (the request-target went into the query), and `POST /x` with
`Host: h/cdn-cgi/edge-conformance/flush?` flushed the edge's log batches. RFC 9112 section 3.2:
a server MUST answer 400 to an HTTP/1.1 request without Host, with more than one Host line, or
with an invalid Host value (RFC 9110 section 7.2: `Host = uri-host [ ":" port ]`). The S3 and
public listeners parse Host themselves (`normalise_host`, XML InvalidArgument) and already did.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import pytest
from reliability.rawhttp import connect, read_until_closed, statuses

REQUESTS = {
    "mgmt": ("base_url", "GET /client/v4/accounts/x/r2/buckets"),
    "edge": ("url", "GET /"),
    "gateway": ("url", "POST /v1/sepolia"),
    "bindings": ("url", "GET /"),
    "s3": ("endpoint", "GET /some-bucket/key"),
    "public": ("url", "GET /key"),
}
PATH_MOVERS = ["h/x", "h?x", "h#x", "h/client/v4/accounts/x/r2/buckets?"]
# surfaces that read no Host of their own: the guard answers every RFC 9112 section 3.2 case
PLAIN = ["mgmt", "edge", "gateway", "bindings"]
INVALID = ["a b", "h\tx", "h:80x", "h:99999", "caf\xe9.example", "a@b", "[fe80::1%25eth0]", "h\\x"]
VALID = [
    "example.com",
    "EXAMPLE.com.:8080",
    "minio_1:9000",
    "[::1]:80",
    "127.0.0.1",
    " h.example\t",
]


def _raw(url: str, head: str) -> bytes:
    sock = connect(url)
    try:
        sock.sendall(head.encode("latin-1"))
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    return raw


def _status(url: str, line: str, hosts: list[str], extra: str = "", version: str = "1.1") -> int:
    head = f"{line} HTTP/{version}\r\n" + "".join(f"Host: {h}\r\n" for h in hosts)
    head += f"{extra}Content-Length: 0\r\nConnection: close\r\n\r\n"
    codes = statuses(raw := _raw(url, head))
    assert len(codes) == 1, raw[:300]
    return codes[0]


def _surface(reference: Any, name: str) -> tuple[str, str]:
    key, line = REQUESTS[name]
    return str(reference.ready["surfaces"][name][key]), line


def _mgmt_auth(reference: Any) -> str:
    mgmt = reference.ready["surfaces"]["mgmt"]
    return f"X-Auth-Email: {mgmt['email']}\r\nX-Auth-Key: {mgmt['api_key']}\r\n"


def test_host_does_not_route_a_management_request(reference: Any) -> None:
    """The request-target names no route: 404 with a plain Host; the Host's path must not win."""
    mgmt = reference.ready["surfaces"]["mgmt"]
    netloc = urlsplit(mgmt["base_url"]).netloc
    line = "GET /client/v4/nothing/here"
    auth = _mgmt_auth(reference)
    assert _status(mgmt["base_url"], line, [netloc], auth) == 404
    moved = f"{netloc}/client/v4/accounts/{mgmt['account_id']}/r2/buckets?"
    assert _status(mgmt["base_url"], line, [moved], auth) == 400


def test_host_does_not_route_an_edge_request(reference: Any) -> None:
    """`POST /x` is an ordinary edge request (logged); a Host holding the flush path is 400."""
    url = reference.ready["surfaces"]["edge"]["url"]
    head = (
        "POST /x HTTP/1.1\r\nHost: h/cdn-cgi/edge-conformance/flush?\r\nConnection: close\r\n\r\n"
    )
    raw = _raw(url, head)
    assert statuses(raw) == [400], raw[:300]
    assert b"batches" not in raw


@pytest.mark.parametrize("host", PATH_MOVERS)
@pytest.mark.parametrize("surface", sorted(REQUESTS))
def test_a_host_holding_a_path_is_400(reference: Any, surface: str, host: str) -> None:
    url, line = _surface(reference, surface)
    extra = _mgmt_auth(reference) if surface == "mgmt" else ""
    assert _status(url, line, [host], extra) == 400


@pytest.mark.parametrize("host", INVALID)
@pytest.mark.parametrize("surface", PLAIN)
def test_invalid_host_is_400(reference: Any, surface: str, host: str) -> None:
    url, line = _surface(reference, surface)
    extra = _mgmt_auth(reference) if surface == "mgmt" else ""
    assert _status(url, line, [host], extra) == 400


@pytest.mark.parametrize("surface", PLAIN)
def test_two_host_lines_and_none_are_400(reference: Any, surface: str) -> None:
    url, line = _surface(reference, surface)
    extra = _mgmt_auth(reference) if surface == "mgmt" else ""
    netloc = urlsplit(url).netloc
    assert _status(url, line, [netloc, netloc], extra) == 400
    assert _status(url, line, [netloc, "other.example"], extra) == 400
    assert _status(url, line, [], extra) == 400
    # HTTP/1.0 has no Host requirement (RFC 9112 section 3.2 binds HTTP/1.1 requests)
    assert _status(url, line, [], extra, version="1.0") != 400


@pytest.mark.parametrize("host", VALID)
@pytest.mark.parametrize("surface", PLAIN)
def test_valid_host_is_served(reference: Any, surface: str, host: str) -> None:
    url, line = _surface(reference, surface)
    extra = _mgmt_auth(reference) if surface == "mgmt" else ""
    assert _status(url, line, [host], extra) != 400
