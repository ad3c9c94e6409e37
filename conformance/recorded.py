"""Recorded requests of a results file, as something to send again.

An exchange in results.json holds the method, the URL (presigned credentials redacted), the
request headers without secrets and, since the replay work, the request body (bounded). This
module decides which surface an exchange went to, which recorded headers are the signer's (to
be made anew) and writes the copyable curl command that reproduces it without this project.
Secrets are never written: a command names them as environment variables.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from conformance.clients.evidence import RETRY_NOTE

S3, MGMT, GATEWAY, PLAIN = "s3", "mgmt", "gateway", "plain"
# the method of an exchange written to the wire as bytes (a head split across writes, bytes
# that are no request): no HTTP library, and so neither replay nor curl, can send it again
RAW = "RAW"
# environment variables the commands name (never values)
S3_KEY_ENV, S3_SECRET_ENV = "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"
MGMT_EMAIL_ENV, MGMT_KEY_ENV = "X_AUTH_EMAIL", "X_AUTH_KEY"
# headers the signer or the HTTP library writes: made anew when the request is sent again
SIGNER_HEADERS = frozenset({
    "authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "host",
    "content-length", "transfer-encoding", "expect", "amz-sdk-invocation-id", "amz-sdk-request",
    "user-agent", "accept-encoding", "connection", "x-auth-email", "x-auth-key",
})  # fmt: skip
PRESIGN_QUERY = frozenset({
    "x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-expires",
    "x-amz-signedheaders", "x-amz-signature", "x-amz-security-token",
})  # fmt: skip
MGMT_PATH = "/client/v4"


@dataclass(frozen=True)
class Recorded:
    """One recorded request, ready to be signed and sent again."""

    method: str
    url: str  # presign query parameters removed
    headers: dict[str, str]  # without the signer's headers
    body: bytes
    kind: str  # s3, mgmt, gateway or plain
    signed: bool  # S3: header-signed or presigned when recorded (else sent unsigned)
    presign_expires: int | None  # S3: X-Amz-Expires of a presigned request
    body_complete: bool  # the recorded body is all of the body that was sent
    # secret headers sent (names): None for files recorded before they were (all assumed)
    credentials: frozenset[str] | None
    # the answer that was recorded
    status: int | None
    response_headers: dict[str, str]
    response_body: str


def kind_of(exchange: Mapping[str, Any], surface: str | None = None) -> str:
    """The surface an exchange went to, from its shape (the results file names no surface)."""
    headers = {str(k).lower() for k in (exchange.get("request_headers") or {})}
    parts = urlsplit(str(exchange.get("url") or ""))
    query = {k.lower() for k, _ in parse_qsl(parts.query, keep_blank_values=True)}
    if "x-amz-date" in headers or "x-amz-content-sha256" in headers or "x-amz-algorithm" in query:
        return S3
    if MGMT_PATH in parts.path:
        return MGMT
    body = str(exchange.get("request_body_excerpt") or "")
    if '"jsonrpc"' in body or surface == "gateway":
        return GATEWAY
    if surface == "s3":
        return S3
    if surface in ("mgmt", "rules_api"):
        return MGMT
    return PLAIN


def replayable(exchange: Mapping[str, Any]) -> bool:
    """False for the suite's own notes among exchanges (a retry, a request never built)."""
    body = str(exchange.get("body_excerpt") or "")
    return (
        bool(exchange.get("url"))
        and exchange.get("method") != "?"
        and not (body.startswith(RETRY_NOTE))
    )


def from_exchange(exchange: Mapping[str, Any], surface: str | None = None) -> Recorded:
    kind = kind_of(exchange, surface)
    parts = urlsplit(str(exchange.get("url") or ""))
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    presigned = any(k.lower() == "x-amz-signature" for k, _ in pairs)
    expires = next((v for k, v in pairs if k.lower() == "x-amz-expires"), None)
    kept = [(k, v) for k, v in pairs if k.lower() not in PRESIGN_QUERY]
    url = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), ""))
    raw_headers = {
        str(k).lower(): _unwrap(str(v)) for k, v in (exchange.get("request_headers") or {}).items()
    }
    headers = {k: v for k, v in raw_headers.items() if k not in SIGNER_HEADERS}
    text = str(exchange.get("request_body_excerpt") or "")
    body = text.encode("utf-8")
    size = exchange.get("request_body_bytes")
    complete = (size is None and not text) or (isinstance(size, int) and size == len(body))
    return Recorded(
        method=str(exchange.get("method") or "GET").upper(), url=url, headers=headers,
        body=body, kind=kind, signed=presigned or _signed(exchange, raw_headers),
        credentials=_credentials(exchange),
        presign_expires=int(expires) if expires and expires.isdigit() else None,
        body_complete=bool(complete), status=exchange.get("status"),
        response_headers=dict(exchange.get("response_headers") or {}),
        response_body=str(exchange.get("body_excerpt") or ""),
    )  # fmt: skip


def curl_command(exchange: Mapping[str, Any], surface: str | None = None) -> str:
    """A curl command line that sends the recorded request again, secrets from the environment.

    S3 requests are signed by curl itself (`--aws-sigv4`); a presigned one is sent header-signed
    (its signature is never recorded). A body cut at the recording limit is marked. "" for bytes
    written as they are (RAW): curl writes a well-formed request, which is not what was sent.
    """
    rec = from_exchange(exchange, surface)
    if rec.method == RAW:
        return ""
    words = ["curl", "-sS", "-i"]
    if rec.method == "HEAD":
        words.append("--head")
    elif rec.method != "GET" or rec.body:
        words += ["-X", rec.method]
    if rec.kind == S3 and rec.signed:
        words += ["--aws-sigv4", "aws:amz:auto:s3",
                  "--user", f"${S3_KEY_ENV}:${S3_SECRET_ENV}"]  # fmt: skip
        # the payload hash, as recorded: S3 wants it and not every curl writes it itself
        sha = _header(exchange, "x-amz-content-sha256")
        if sha and rec.presign_expires is None:
            words += ["-H", f"x-amz-content-sha256: {sha}"]
    for name, value in rec.headers.items():
        words += ["-H", f"{name}: {value}"]
    if rec.kind == MGMT and sends(rec, "x-auth-email"):
        words += ["-H", f"X-Auth-Email: ${MGMT_EMAIL_ENV}"]
    if rec.kind == MGMT and sends(rec, "x-auth-key"):
        words += ["-H", f"X-Auth-Key: ${MGMT_KEY_ENV}"]
    if rec.body:
        words += ["--data-binary", rec.body.decode("utf-8", errors="replace")]
    words.append(rec.url)
    line = " ".join(_quote(word) for word in words)
    if not rec.body_complete:
        line += "  # the body was cut at the recording limit: complete it before sending"
    return line


def _credentials(exchange: Mapping[str, Any]) -> frozenset[str] | None:
    names = exchange.get("secret_headers")
    return frozenset(str(n).lower() for n in names) if isinstance(names, list) else None


def _signed(exchange: Mapping[str, Any], headers: Mapping[str, str]) -> bool:
    """Header-signed when recorded: an Authorization header was sent (older files: the
    x-amz-date a signer writes)."""
    sent = _credentials(exchange)
    return "authorization" in sent if sent is not None else "x-amz-date" in headers


def sends(rec: Recorded, header: str) -> bool:
    """Whether the replay of `rec` sends the secret `header` (older files: always)."""
    return rec.credentials is None or header.lower() in rec.credentials


def _unwrap(value: str) -> str:
    """A header value older results recorded as a bytes repr ("b'…'"): the value itself."""
    if len(value) >= 3 and value[:2] in ("b'", 'b"') and value[-1] == value[1]:
        return value[2:-1]
    return value


def _header(exchange: Mapping[str, Any], name: str) -> str | None:
    for key, value in (exchange.get("request_headers") or {}).items():
        if str(key).lower() == name:
            return _unwrap(str(value))
    return None


def _quote(word: str) -> str:
    """Shell quoting that still expands the `$VAR` references of secrets (double quotes)."""
    if "$" in word and all(ch not in word for ch in "\"`\\'\n") and _only_env_refs(word):
        return f'"{word}"'
    return shlex.quote(word)


def _only_env_refs(word: str) -> bool:
    """True when every `$` in `word` starts one of the environment variables we name."""
    names = (S3_KEY_ENV, S3_SECRET_ENV, MGMT_EMAIL_ENV, MGMT_KEY_ENV)
    rest = word
    for name in names:
        rest = rest.replace(f"${name}", "")
    return "$" not in rest
