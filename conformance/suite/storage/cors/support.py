"""CORS configuration bodies and a raw PutBucketCors, shared by the CORS test modules.

Bodies are sent raw (not through boto3) so that invalid ones reach the target unchanged.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"
ORIGIN = "https://app.example.com"
OTHER_ORIGIN = "https://other.example.org"


def rule_xml(
    origins: list[str] | None = None,
    methods: list[str] | None = None,
    headers: list[str] | None = None,
    expose: list[str] | None = None,
    extra: str = "",
) -> str:
    """One <CORSRule>; `extra` is inserted verbatim (for unknown elements)."""
    parts = [f"<AllowedOrigin>{o}</AllowedOrigin>" for o in origins or [ORIGIN]]
    parts += [f"<AllowedMethod>{m}</AllowedMethod>" for m in methods or ["GET", "HEAD", "PUT"]]
    parts += [f"<AllowedHeader>{h}</AllowedHeader>" for h in headers or []]
    parts += [f"<ExposeHeader>{e}</ExposeHeader>" for e in expose or []]
    return "<CORSRule>" + "".join(parts) + extra + "</CORSRule>"


def config_xml(*rules: str, declaration: bool = False, extra: str = "") -> bytes:
    text = f'<CORSConfiguration xmlns="{XMLNS}">{"".join(rules)}{extra}</CORSConfiguration>'
    if declaration:
        text = '<?xml version="1.0" encoding="UTF-8"?>\n' + text
    return text.encode()


def put_cors(s3: Any, bucket: str, body: bytes) -> Any:
    """PutBucketCors with the body exactly as given (Content-MD5 set, as S3 requires)."""
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    return s3.wire.request(
        "PUT",
        bucket,
        query=[("cors", None)],
        body=body,
        headers={"Content-MD5": md5, "Content-Type": "application/xml"},
    )


def get_cors(s3: Any, bucket: str) -> Any:
    return s3.wire.request("GET", bucket, query=[("cors", None)])


def preflight(
    s3: Any,
    bucket: str,
    key: str | None,
    method: str,
    origin: str = ORIGIN,
    headers: list[str] | None = None,
    url: str | None = None,
) -> Any:
    """An unsigned OPTIONS preflight, as a browser sends it."""
    sent = {"Origin": origin, "Access-Control-Request-Method": method}
    if headers:
        sent["Access-Control-Request-Headers"] = ",".join(headers)
    if url is None:
        return s3.wire.request("OPTIONS", bucket, key, headers=sent, sign="none")
    from conformance.clients.s3 import PreparedWire

    return s3.wire.send(PreparedWire("OPTIONS", url, sent))


def header_set(reply: Any, name: str) -> set[str]:
    """A comma-separated response header as a set of lower-cased items."""
    return {item.strip().lower() for item in (reply.header(name) or "").split(",") if item.strip()}


def assert_max_age(reply: Any, max_age: int | None) -> None:
    """Access-Control-Max-Age carries the rule's MaxAgeSeconds. Without one, no source says the
    header is absent (a server may send its own default), so only its form is checked then:
    delta-seconds, a non-negative integer (Fetch standard)."""
    sent = reply.header("access-control-max-age")
    if max_age is not None:
        assert sent == str(max_age), (
            f"Access-Control-Max-Age {sent!r}, rule {max_age}; {reply.describe()}"
        )
    elif sent is not None:
        assert sent.isascii() and sent.isdigit(), (
            f"Access-Control-Max-Age {sent!r}: not delta-seconds"
        )
