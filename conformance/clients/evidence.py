"""Evidence of wire exchanges: what a client saw, bounded and without secrets.

Every client appends one `Exchange` per HTTP exchange to the current collector; the plugin
starts a fresh collector before each test and attaches what was collected to the test report.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

BODY_EXCERPT_BYTES = 600
MAX_EXCHANGES = 12
SECRET_QUERY_KEYS = {"x-amz-signature", "x-amz-credential", "x-amz-security-token"}
SECRET_HEADERS = {"authorization", "x-auth-key", "x-auth-email", "x-amz-security-token", "cookie"}
KEPT_RESPONSE_HEADERS = (
    "content-type",
    "content-length",
    "content-range",
    "etag",
    "location",
    "last-modified",
    "x-amz-bucket-region",
    "x-amz-version-id",
    "x-amz-copy-source-version-id",
    "access-control-allow-origin",
    "access-control-allow-headers",
    "access-control-expose-headers",
    "content-encoding",
)


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    query = [
        (k, "REDACTED" if k.lower() in SECRET_QUERY_KEYS else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def excerpt(body: bytes | str | None) -> str:
    if body is None:
        return ""
    if isinstance(body, bytes):
        text = body[:BODY_EXCERPT_BYTES].decode("utf-8", errors="replace")
        return text + ("…" if len(body) > BODY_EXCERPT_BYTES else "")
    return body[:BODY_EXCERPT_BYTES] + ("…" if len(body) > BODY_EXCERPT_BYTES else "")


@dataclass
class Exchange:
    method: str
    url: str
    status: int | None
    request_headers: dict[str, str] = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)
    body_excerpt: str = ""
    # what was sent, where the body decides the answer (a JSON-RPC request); "" when not recorded
    request_body_excerpt: str = ""

    @classmethod
    def build(
        cls,
        method: str,
        url: str,
        status: int | None,
        request_headers: Any = None,
        response_headers: Any = None,
        body: bytes | str | None = None,
        request_body: bytes | str | None = None,
    ) -> Exchange:
        req = {
            str(k).lower(): str(v)
            for k, v in dict(request_headers or {}).items()
            if str(k).lower() not in SECRET_HEADERS
        }
        resp_all = {str(k).lower(): str(v) for k, v in dict(response_headers or {}).items()}
        resp = {k: v for k, v in resp_all.items() if k in KEPT_RESPONSE_HEADERS}
        return cls(
            method.upper(), redact_url(url), status, req, resp, excerpt(body), excerpt(request_body)
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Collector:
    """Exchanges of the running test, newest last, bounded."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []

    def add(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)
        if len(self.exchanges) > MAX_EXCHANGES:
            del self.exchanges[0]

    def reset(self) -> list[Exchange]:
        taken, self.exchanges = self.exchanges, []
        return taken


collector = Collector()
