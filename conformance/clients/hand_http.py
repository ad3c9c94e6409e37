"""A connection for a request written by hand (http.client), which no HTTP library sends:
a head without its body, no Host or two, one header on several lines."""

from __future__ import annotations

import http.client
import ssl
from urllib.parse import urlsplit


def hand_connection(
    url: str, verify: bool | str | None, timeout: float
) -> http.client.HTTPConnection:
    """An unopened HTTP(S) connection to `url`'s host; `verify` as `requests` takes it (a CA
    bundle path, or whether to verify at all; None verifies)."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    if parts.scheme != "https":
        return http.client.HTTPConnection(host, parts.port, timeout=timeout)
    context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
    if verify is False:
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    return http.client.HTTPSConnection(host, parts.port, timeout=timeout, context=context)
