"""A connection for a request written by hand (http.client), which no HTTP library sends:
a head without its body, no Host or two, one header on several lines."""

from __future__ import annotations

import http.client
import os
import ssl
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from conformance.clients.evidence import Exchange

# where `requests` looks for a CA bundle when told to verify with no path (trust_env)
CA_BUNDLE_ENV = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def hand_connection(
    url: str, verify: bool | str | None, timeout: float
) -> http.client.HTTPConnection:
    """An unopened HTTP(S) connection to `url`'s host; `verify` as `requests` takes it (a CA
    bundle file or directory, or whether to verify at all; None verifies), so a hand-written
    request trusts what the client's other requests trust."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    # the port always given: http.client would read "::1" (an IPv6 literal without a port)
    # as host "::" at port 1
    if parts.scheme != "https":
        return http.client.HTTPConnection(host, parts.port or 80, timeout=timeout)
    return http.client.HTTPSConnection(
        host, parts.port or 443, timeout=timeout, context=tls_context(verify)
    )


def send_fields(
    conn: http.client.HTTPConnection,
    method: str,
    url: str,
    fields: Sequence[tuple[str, str]],
    body: bytes | None = None,
    skip_host: bool = False,
) -> tuple[int, list[tuple[str, str]], bytes]:
    """Write `method url` with exactly these field lines, in order (a name twice is two lines;
    Host is http.client's unless `skip_host`), then `body`; the answer's status, fields, body."""
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    conn.putrequest(method, target, skip_host=skip_host, skip_accept_encoding=True)
    for name, value in fields:
        conn.putheader(name, value)
    conn.endheaders(body)
    answer = conn.getresponse()
    return answer.status, answer.getheaders(), answer.read()


def tls_context(verify: bool | str | None) -> ssl.SSLContext:
    if verify is False:
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        return context
    where = verify if isinstance(verify, str) else _bundle_from_env()
    if where and os.path.isdir(where):
        return ssl.create_default_context(capath=where)
    return ssl.create_default_context(cafile=where)


def _bundle_from_env() -> str | None:
    for name in CA_BUNDLE_ENV:
        if value := os.environ.get(name):
            return value
    return None


def host_header(url: str) -> str:
    """The Host a client sends for `url`, as botocore signs it: no user information (RFC 9110
    7.2), the host lowercased, an IPv6 literal in brackets, the port only when it is not the
    scheme's default (a Host of `s3.example:443` fails a signature made over `s3.example`)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return host if parts.port in (None, default) else f"{host}:{parts.port}"


def broken_answer(method: str, url: str, sent: Mapping[str, str], exc: Exception) -> Exchange:
    """The evidence of a request whose answer never came whole (the connection closed before
    or during it): what was sent, and how it ended."""
    return Exchange.build(
        method, url, None, sent, {}, f"no whole answer: {type(exc).__name__}: {exc}"
    )
