"""Raw HTTP/1.1 over a socket (TLS where the URL says https) for the listener battery.

requests cannot send half a header, a header that never ends, or a complete request followed by
garbage on the same connection; these helpers can, and read whatever comes back until the server
closes or a deadline passes, so a hang is a measured time, never a stuck test.
"""

from __future__ import annotations

import re
import socket
import ssl
import time
from urllib.parse import urlsplit

STATUS = re.compile(rb"HTTP/1\.[01] (\d{3}) ")


def connect(url: str, timeout: float = 5.0, source: str | None = None) -> socket.socket:
    """A connected socket to the URL's listener; TLS (certificate not checked) for https.
    `source`: the local address to connect from (another loopback address: another client)."""
    parts = urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or 80)
    sock = socket.create_connection(address, timeout, (source, 0) if source else None)
    if parts.scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(["http/1.1"])
        sock = context.wrap_socket(sock, server_hostname=parts.hostname)
    return sock


def read_until_closed(sock: socket.socket, deadline: float) -> tuple[bytes, bool]:
    """(bytes read, closed by the server before `deadline`)."""
    data = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return data, False
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return data, False
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
            return data, True
        if not chunk:
            return data, True
        data += chunk


def statuses(raw: bytes) -> list[int]:
    return [int(code) for code in STATUS.findall(raw)]


def request_head(method: str, url: str, headers: dict[str, str]) -> bytes:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"{method} {target} HTTP/1.1", f"Host: {parts.netloc}"]
    lines += [f"{k}: {v}" for k, v in headers.items() if k.lower() != "host"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()
