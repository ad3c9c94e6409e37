"""A malformed Host on the public entrypoint is 400 (issue 26, fresh adversarial pass).

The Host header alone chooses the public bucket. On main `normalise_host` stripped whitespace
and cut everything after the last `:`, so `site.example.com:abc`, a port of eight digits or
Arabic-Indic digits, and a Host ending in a tab or space all served the bucket of
`site.example.com`. A Host is now a host name (or bracketed IPv6 literal) with an optional
port of at most five ASCII digits, up to 65535 (RFC 9110 section 7.2, RFC 3986 section 3.2);
anything else is 400 `InvalidArgument` (RFC 9110: a Host with an invalid value is 400).
Spaces and tabs around the whole value are not part of it (RFC 9110 section 5.5) and are
stripped on every listener; inside the value they stay malformed.
"""

from __future__ import annotations

import time

import pytest
from reliability.offload_probe import public_domain, status_of
from reliability.rawhttp import connect, read_until_closed
from reliability.refproc import RefProcess

BUCKET = "public-host-check"


@pytest.fixture(scope="module")
def domain(ref: RefProcess) -> str:
    wire = ref.wire()
    wire.create_bucket(BUCKET)
    assert wire.request("PUT", BUCKET, "k", body=b"hello").status == 200
    return public_domain(ref, BUCKET)


def _get(ref: RefProcess, hosts: list[str]) -> tuple[int, bytes]:
    url = ref.surface("public")["url"] + "/k"
    sock = connect(url, timeout=10)
    try:
        lines = ["GET /k HTTP/1.1", *(f"Host: {h}" for h in hosts), "Connection: close"]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))
        raw, _ = read_until_closed(sock, time.monotonic() + 10)
    finally:
        sock.close()
    return status_of(raw), raw.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize(
    "suffix",
    ["", ":8080", ":", ":65535", ".", "-UPPER", "\t", " ", ":80 ", " \t"],
    ids=lambda s: repr(s),
)
def test_well_formed_hosts_are_served(ref: RefProcess, domain: str, suffix: str) -> None:
    host = domain.upper() if suffix == "-UPPER" else domain + suffix
    assert _get(ref, [host]) == (200, b"hello")


@pytest.mark.parametrize(
    "suffix",
    [":abc", ":80a", ":1_0", ":+80", ":٣", ":99999999", ":65536", "\t:80", " :80", ": 80"],
    ids=lambda s: repr(s),
)
def test_malformed_hosts_are_400(ref: RefProcess, domain: str, suffix: str) -> None:
    status, body = _get(ref, [domain + suffix])
    assert status == 400, body[:300]
    assert b"<Code>InvalidArgument</Code>" in body
    assert b"hello" not in body


@pytest.mark.parametrize("host", ["[::1]:x", "a b.example", "x..example:80x", "@evil.example"])
def test_malformed_unknown_hosts_are_400(ref: RefProcess, domain: str, host: str) -> None:
    assert _get(ref, [host])[0] == 400


def test_unknown_well_formed_host_stays_404(ref: RefProcess, domain: str) -> None:
    status, body = _get(ref, ["nobody.example:8080"])
    assert status == 404 and b"NoSuchBucket" in body


def test_two_hosts_are_400(ref: RefProcess, domain: str) -> None:
    """RFC 9110 section 7.2 / RFC 9112 section 3.2: more than one Host line is 400."""
    assert _get(ref, [domain, domain])[0] == 400
