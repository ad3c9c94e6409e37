"""SigV4 header signing built by hand, for the valid forms botocore never sends.

botocore always signs with `X-Amz-Date`, deletes a `Date` header, and derives the credential
scope from the same instant. Tests of the other forms AWS's SigV4 pages allow (a `Date` header
instead of `x-amz-date`, both headers at once) or forbid (a credential date that is not the
request's date, still consistently signed) need the canonical request built here. Only what
those tests send is supported: a path of unreserved characters and a canonical query.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from collections.abc import Mapping
from urllib.parse import quote, urlsplit

from conformance.clients.s3_wire import PreparedWire, WireClient

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _signing_key(secret: str, date: str, region: str) -> bytes:
    key = hmac.new(("AWS4" + secret).encode(), date.encode(), hashlib.sha256).digest()
    for part in (region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def sign(
    wire: WireClient,
    method: str,
    url: str,
    headers: Mapping[str, str],
    *,
    timestamp: dt.datetime,
    credential_date: str | None = None,
    body: bytes = b"",
    stamp: str | None = None,
    scope: str | None = None,
    payload_hash: str | None = None,
    canonical_path: str | None = None,
    canonical_query: str | None = None,
    sign_host: bool = True,
) -> PreparedWire:
    """Sign `headers` (plus Host and x-amz-content-sha256) for `timestamp`.

    `headers` must already hold the header that carries the date (`x-amz-date` or `Date`);
    `credential_date` (YYYYMMDD) defaults to the timestamp's date. The malformed forms a server
    must refuse are signed consistently, so that only the form decides: `stamp` is the request
    time as the string to sign carries it (default the timestamp in ISO 8601 basic form),
    `scope` the credential scope written in the header and signed (the key is still derived
    from the credential date and the region), `payload_hash` the x-amz-content-sha256 value
    (default the body's SHA-256). `canonical_path` / `canonical_query` are what the canonical
    request holds when the URL is sent in another, equivalent encoding (default: as sent).
    `sign_host=False` sends Host unsigned (left out of SignedHeaders).
    """
    parts = urlsplit(url)
    payload = hashlib.sha256(body).hexdigest() if payload_hash is None else payload_hash
    sent = {**headers, "Host": parts.netloc, "x-amz-content-sha256": payload}
    canonical = {name.lower(): " ".join(value.split()) for name, value in sent.items()}
    if not sign_host:
        del canonical["host"]
    names = sorted(canonical)
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    request = "\n".join(
        [
            method,
            canonical_path or parts.path or "/",
            query if canonical_query is None else canonical_query,
            "".join(f"{name}:{canonical[name]}\n" for name in names),
            ";".join(names),
            payload,
        ]
    )
    date = credential_date or timestamp.strftime("%Y%m%d")
    scope = scope or f"{date}/{wire.region}/s3/aws4_request"
    to_sign = "\n".join(
        [
            ALGORITHM,
            stamp or timestamp.strftime("%Y%m%dT%H%M%SZ"),
            scope,
            hashlib.sha256(request.encode()).hexdigest(),
        ]
    )
    key = _signing_key(wire.credentials.secret_key, date, wire.region)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    sent["Authorization"] = (
        f"{ALGORITHM} Credential={wire.credentials.access_key}/{scope}, "
        f"SignedHeaders={';'.join(names)}, Signature={signature}"
    )
    return PreparedWire(method, url, sent, body)


def presign(
    wire: WireClient,
    method: str,
    url: str,
    *,
    timestamp: dt.datetime,
    credential_date: str | None = None,
    expires: int | str | None = 600,
    signed: Mapping[str, str] | None = None,
    sign_host: bool = True,
    stamp: str | None = None,
    scope: str | None = None,
    algorithm: str | None = ALGORITHM,
) -> str:
    """A presigned URL (UNSIGNED-PAYLOAD) whose scope date may differ. `signed`: headers signed
    besides Host (the request must send them); `sign_host=False` leaves Host out of
    SignedHeaders and `expires=None` leaves X-Amz-Expires out (forms AWS refuses). `stamp`
    (X-Amz-Date as sent and signed), `scope` (the credential scope, signed; the key is still
    the credential date's and the region's), a text `expires` and `algorithm` (X-Amz-Algorithm
    as sent, None: left out; the string to sign is AWS4-HMAC-SHA256's) make the malformed forms."""
    parts = urlsplit(url)
    date = credential_date or timestamp.strftime("%Y%m%d")
    scope = scope or f"{date}/{wire.region}/s3/aws4_request"
    stamp = stamp or timestamp.strftime("%Y%m%dT%H%M%SZ")
    headers = {name.lower(): " ".join(value.split()) for name, value in (signed or {}).items()}
    if sign_host:
        headers["host"] = parts.netloc
    names = sorted(headers)
    params = [
        ("X-Amz-Credential", f"{wire.credentials.access_key}/{scope}"),
        ("X-Amz-Date", stamp),
        ("X-Amz-SignedHeaders", ";".join(names)),
    ]
    if algorithm is not None:
        params.append(("X-Amz-Algorithm", algorithm))
    if expires is not None:
        params.append(("X-Amz-Expires", str(expires)))
    query = "&".join(
        sorted(
            [item for item in parts.query.split("&") if item]
            + [f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in params]
        )
    )
    canonical_headers = "".join(f"{name}:{headers[name]}\n" for name in names)
    request = "\n".join(
        [method, parts.path or "/", query, canonical_headers, ";".join(names), "UNSIGNED-PAYLOAD"]
    )
    to_sign = "\n".join([ALGORITHM, stamp, scope, hashlib.sha256(request.encode()).hexdigest()])
    key = _signing_key(wire.credentials.secret_key, date, wire.region)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{query}&X-Amz-Signature={signature}"
