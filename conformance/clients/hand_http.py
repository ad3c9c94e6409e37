"""A connection for a request written by hand (http.client), which no HTTP library sends:
a head without its body, no Host or two, one header on several lines."""

from __future__ import annotations

import base64
import http.client
import os
import ssl
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

import requests.utils

from conformance.clients.evidence import Exchange

# where `requests` looks for a CA bundle when told to verify with no path (trust_env)
CA_BUNDLE_ENV = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def hand_connection(
    url: str, verify: bool | str | None, timeout: float
) -> http.client.HTTPConnection:
    """An HTTP(S) connection to `url`'s host; `verify` as `requests` takes it (a CA bundle file
    or directory, or whether to verify at all; None verifies), so a hand-written request trusts
    what the client's other requests trust. Where `requests` would go through a proxy
    (HTTP(S)_PROXY, NO_PROXY), the connection goes there too, as a CONNECT tunnel (for an
    http:// URL too, which `requests` would forward: a forwarding proxy may rewrite a head, join
    a field sent on two lines, add Host; a tunnel carries the bytes as written). Without a proxy
    it is returned unopened; through one it is opened here (the tunnel and its TLS), so a proxy
    that refuses or never answers is TunnelFailed, never a target that did not answer."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    # the port always given: http.client would read "::1" (an IPv6 literal without a port)
    # as host "::" at port 1
    port = parts.port or (443 if parts.scheme == "https" else 80)
    proxy = _proxy_of(url)
    first_hop = (host, port) if proxy is None else proxy[:2]
    conn: http.client.HTTPConnection
    if parts.scheme != "https":
        conn = http.client.HTTPConnection(*first_hop, timeout=timeout)
    else:
        conn = http.client.HTTPSConnection(*first_hop, timeout=timeout, context=tls_context(verify))
    if proxy is not None:
        if ":" in host:  # Python 3.11's CONNECT line would name it without its brackets
            raise ProxyUnsupported(f"{url}: an IPv6 literal cannot be tunnelled through a proxy")
        conn.set_tunnel(host, port, headers=proxy[2])
        try:
            conn.connect()
        except OSError as exc:
            conn.close()
            where = f"{proxy[0]}:{proxy[1]}"
            raise TunnelFailed(
                f"through proxy {where}, no connection to {host}:{port} (the CONNECT, or TLS "
                f"with the target through it, failed): {exc}"
            ) from exc
    return conn


class ProxyUnsupported(RuntimeError):
    """The environment names a proxy a hand-written request cannot be tunnelled through."""


class TunnelFailed(RuntimeError):
    """The proxy refused, or did not answer, the CONNECT (or the TLS through it): the request
    was never written, and the target said nothing."""


def _proxy_of(url: str) -> tuple[str, int, dict[str, str]] | None:
    """The host, port and CONNECT headers (its credentials) of the HTTP proxy `requests`
    would use for `url`, if any."""
    proxy = requests.utils.select_proxy(url, requests.utils.get_environ_proxies(url))
    if not proxy:
        return None
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    if parts.scheme != "http" or not parts.hostname:
        raise ProxyUnsupported(
            f"proxy {proxy!r} for {url}: a request written by hand goes only through an "
            "http:// proxy (a CONNECT tunnel); unset it or add the host to NO_PROXY"
        )
    user, password = requests.utils.get_auth_from_url(proxy)
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    headers = {"Proxy-Authorization": f"Basic {token}"} if user else {}
    return parts.hostname, parts.port or 80, headers


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
