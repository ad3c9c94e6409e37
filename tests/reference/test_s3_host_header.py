"""The S3 listener refuses a Host it cannot read: 400 InvalidArgument, before authentication.

RFC 9112 section 3.2: a server MUST answer 400 to a request with more than one Host line or a
Host whose value is invalid; Host = uri-host [":" port] (RFC 9110 section 7.2), a port is ASCII
digits (RFC 3986 section 3.2.3) and a TCP port is at most 65535. Before (hostile round 8) the
S3 listener checked nothing: `example:99999`, `example:abc`, `a b` and two Host lines were all
served, a virtual-hosted Host cut at its last `:` (only the public listener refused them). The
listener now reads Host with the public listener's parser (`services/domains.normalise_host`),
whose name part is RFC 3986's reg-name, so names a compose file gives (`minio_1`) still work.
"""

from __future__ import annotations

import socket
import time
from typing import Any
from urllib.parse import urlsplit

import pytest
from reliability.rawhttp import read_until_closed, statuses

from conformance.clients.s3_wire import WireClient


def _send(wire: WireClient, hosts: list[str], sign: str = "header", bucket: str = "") -> Any:
    """(status, body) of a GET signed (or not) for the first Host, sent with every Host line."""
    prepared = wire.prepare("GET", bucket or None, headers={"Host": hosts[0]}, sign=sign)
    parts = urlsplit(prepared.url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"GET {target} HTTP/1.1", *(f"Host: {host}" for host in hosts)]
    lines += [f"{k}: {v}" for k, v in prepared.headers.items() if k.lower() != "host"]
    lines.append("Connection: close")
    sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 10)
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    codes = statuses(raw)
    assert len(codes) == 1, raw[:300]
    return codes[0], raw.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize(
    "host",
    ["example:99999", "example:65536", "example:99999999", "example:abc", "example:-1",
     "example: 80", "a b", "[::1]:x", "@evil.example", "x.example:80x"],
)  # fmt: skip
def test_malformed_host_is_400(wire: WireClient, host: str) -> None:
    status, body = _send(wire, [host])
    assert status == 400, body[:300]
    assert b"<Code>InvalidArgument</Code>" in body


def test_malformed_host_is_400_before_auth(wire: WireClient) -> None:
    """Unsigned: the Host is refused first (as an undecodable path is), not 401."""
    status, body = _send(wire, ["example:99999"], sign="none")
    assert status == 400 and b"InvalidArgument" in body, body[:300]


def test_two_host_lines_are_400(wire: WireClient) -> None:
    netloc = urlsplit(wire.endpoint).netloc
    assert _send(wire, [netloc, netloc])[0] == 400


@pytest.mark.parametrize(
    "host", ["{netloc}", "example:65535", "example:", "example.", "EXAMPLE:0", "minio_1:9000",
             "[::1]:8080", "127.0.0.1"],
)  # fmt: skip
def test_well_formed_host_is_served(wire: WireClient, host: str) -> None:
    host = host.format(netloc=urlsplit(wire.endpoint).netloc)
    status, body = _send(wire, [host])
    assert status == 200 and b"<ListAllMyBucketsResult" in body, body[:300]


def test_virtual_hosted_host_with_port_still_names_the_bucket(wire: WireClient, s3: Any) -> None:
    """`{bucket}.{account}.example:8443` lists the bucket, the port cut off before the lookup."""
    account = s3.list_buckets()["Owner"]["ID"]
    name = f"host-port-{time.monotonic_ns() % 10**9}"
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="k", Body=b"x")
    status, body = _send(wire, [f"{name}.{account}.example:8443"])
    assert status == 200 and b"<Key>k</Key>" in body, body[:300]


@pytest.mark.parametrize("version", ["1.1", "1.0"])
def test_missing_host_is_400_on_http11_only(wire: WireClient, version: str) -> None:
    """RFC 9112 section 3.2: an HTTP/1.1 request without Host is 400 (hostile round 11: the S3
    listener took it for path-style and answered 401); HTTP/1.0 has no Host to require."""
    parts = urlsplit(wire.endpoint)
    sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 10)
    try:
        sock.sendall(f"GET / HTTP/{version}\r\nConnection: close\r\n\r\n".encode())
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    codes = statuses(raw)
    if version == "1.1":
        assert codes == [400] and b"<Code>InvalidArgument</Code>" in raw, raw[:300]
    else:
        assert codes and codes[0] != 400, raw[:300]
