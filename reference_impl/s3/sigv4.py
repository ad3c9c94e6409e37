"""SigV4 verification: header auth and presigned query auth, as botocore signs them.

The canonical request is rebuilt from the raw path and query the client sent. S3 clients
percent-encode everything except unreserved characters, so the re-encoded form is tried first
and the form as sent second (some clients leave `+`, `=` or `~` raw).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, unquote

from reference_impl.numbers import parse_decimal
from reference_impl.s3.chunked import MODES as STREAMING_MODES
from reference_impl.s3.chunked import StreamingAuth
from reference_impl.wire.s3.errors import S3Error

ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED = "UNSIGNED-PAYLOAD"
AMZ_DATE = "%Y%m%dT%H%M%SZ"
MAX_PRESIGN_EXPIRES = 7 * 24 * 3600
_AUTH_RE = re.compile(
    r"^AWS4-HMAC-SHA256\s+Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-fA-F]+)\s*\Z"
)
_SHA256_RE = re.compile(r"\A[0-9a-fA-F]{64}\Z")
# texts that quote(unquote(text), safe=...) gives back unchanged: no `%`, only safe characters
_CANONICAL_COMPONENT = re.compile(r"[A-Za-z0-9_.~-]*")
_CANONICAL_PATH = re.compile(r"[A-Za-z0-9_.~/-]*")
_CACHED_MAX_LEN = 256  # longer query components are canonicalised each time, not kept


@dataclass(frozen=True)
class Key:
    access_key_id: str
    secret: str
    account: str


@dataclass(frozen=True)
class AuthPolicy:
    """What the profile says about signing (built once per request from ctx.profile)."""

    regions: frozenset[str] | None  # None: any region accepted
    max_skew_seconds: int
    presigned_urls: bool
    check_expiry: bool = True  # False only under the deviation `presign_no_expiry`


@dataclass(frozen=True)
class Verified:
    account: str
    access_key_id: str
    payload_sha256: str | None  # hex digest the body must have; None when unsigned
    presigned: bool
    streaming: StreamingAuth | None = None  # aws-chunked body: what its chunks chain from


def verify(
    method: str,
    raw_path: str,
    raw_query: str,
    headers: Iterable[tuple[str, str]],
    keys: dict[str, Key],
    policy: AuthPolicy,
    now: dt.datetime,
) -> Verified:
    header_map: dict[str, list[str]] = {}
    for name, value in headers:
        header_map.setdefault(name.lower(), []).append(value)
    pairs = _split_query(raw_query)
    query_names = {unquoted(k) for k, _ in pairs}
    auth = header_map.get("authorization", [""])[0]
    if auth:
        return _verify_header(method, raw_path, pairs, header_map, auth, keys, policy, now)
    if "X-Amz-Signature" in query_names or "X-Amz-Credential" in query_names:
        return _verify_presigned(method, raw_path, pairs, header_map, keys, policy, now)
    # no credentials at all: 401 Unauthorized in the provider's error table (10002)
    raise S3Error("Unauthorized", "Anonymous access is not allowed")


def _verify_header(
    method: str,
    raw_path: str,
    pairs: list[tuple[str, str]],
    headers: dict[str, list[str]],
    auth: str,
    keys: dict[str, Key],
    policy: AuthPolicy,
    now: dt.datetime,
) -> Verified:
    match = _AUTH_RE.match(auth.strip())
    if not match:
        if auth.startswith("AWS "):
            raise S3Error("InvalidRequest", "Signature version 2 is not supported")
        raise S3Error("AuthorizationHeaderMalformed")
    credential, signed_headers, signature = match.groups()
    key, scope, date_stamp, region = _credential(
        credential, keys, policy, "AuthorizationHeaderMalformed"
    )
    amz_date = (headers.get("x-amz-date") or [""])[0]
    moment = _parse_amz_date(amz_date, headers)
    if abs((now - moment).total_seconds()) > policy.max_skew_seconds:
        raise S3Error("RequestTimeTooSkewed")
    # the scope's date is the request's day, whichever header dates it (a Date-dated request
    # took any scope date, one-digit fields included: defects13)
    if (amz_date[:8] if amz_date else moment.strftime("%Y%m%d")) != date_stamp:
        raise S3Error("SignatureDoesNotMatch", "Credential date does not match the request date")
    content_sha = (headers.get("x-amz-content-sha256") or [""])[0]
    if not content_sha:
        raise S3Error(
            "InvalidRequest", "Missing required header for this request: x-amz-content-sha256"
        )
    streaming = content_sha in STREAMING_MODES
    if content_sha != UNSIGNED and not streaming and not _SHA256_RE.match(content_sha):
        if content_sha.startswith("STREAMING-"):
            raise S3Error("NotImplemented", f"{content_sha} uploads are not supported")
        raise S3Error(
            "InvalidArgument", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a hex SHA-256"
        )
    timestamp = amz_date or moment.strftime(AMZ_DATE)
    _check(
        method,
        raw_path,
        pairs,
        headers,
        signed_headers,
        content_sha,
        key,
        scope,
        timestamp,
        region,
        signature,
    )
    if streaming:
        chain = StreamingAuth(
            content_sha,
            _signing_key(key.secret, date_stamp, region),
            timestamp,
            scope,
            signature.lower(),
        )
        return Verified(key.account, key.access_key_id, None, presigned=False, streaming=chain)
    payload = None if content_sha == UNSIGNED else content_sha.lower()
    return Verified(key.account, key.access_key_id, payload, presigned=False)


def _verify_presigned(
    method: str,
    raw_path: str,
    pairs: list[tuple[str, str]],
    headers: dict[str, list[str]],
    keys: dict[str, Key],
    policy: AuthPolicy,
    now: dt.datetime,
) -> Verified:
    if not policy.presigned_urls:
        raise S3Error("NotImplemented", "Presigned URLs are not supported")
    params = {unquoted(k): unquoted(v) for k, v in pairs}
    bad = "AuthorizationQueryParametersError"
    if params.get("X-Amz-Algorithm") != ALGORITHM:
        raise S3Error(bad, "X-Amz-Algorithm only supports AWS4-HMAC-SHA256")
    for required in (
        "X-Amz-Credential",
        "X-Amz-Date",
        "X-Amz-SignedHeaders",
        "X-Amz-Signature",
        "X-Amz-Expires",
    ):
        if not params.get(required):
            raise S3Error(bad, f"Query-string authentication requires {required}")
    key, scope, date_stamp, region = _credential(params["X-Amz-Credential"], keys, policy, bad)
    try:
        moment = _amz_date(params["X-Amz-Date"])
        expires = parse_decimal(params["X-Amz-Expires"], name="X-Amz-Expires")
    except ValueError:
        raise S3Error(bad, "X-Amz-Date or X-Amz-Expires is malformed") from None
    if not 0 <= expires <= MAX_PRESIGN_EXPIRES:
        raise S3Error(bad, "X-Amz-Expires must be between 0 and 604800 seconds")
    # compared as a difference: moment + expires passes year 9999 (OverflowError) for a
    # URL signed at the calendar's end, which is only "not valid yet"
    if policy.check_expiry and (now - moment).total_seconds() > expires:
        raise S3Error("ExpiredRequest", "Request has expired")  # dates.md: 400
    if (moment - now).total_seconds() > policy.max_skew_seconds:
        raise S3Error("AccessDenied", "Request is not valid yet")
    if params["X-Amz-Date"][:8] != date_stamp:
        raise S3Error("SignatureDoesNotMatch", "Credential date does not match X-Amz-Date")
    content_sha = params.get("X-Amz-Content-Sha256") or UNSIGNED
    unsigned_pairs = [
        (k, v) for k, v in pairs if k != "X-Amz-Signature" and unquoted(k) != "X-Amz-Signature"
    ]
    _check(
        method,
        raw_path,
        unsigned_pairs,
        headers,
        params["X-Amz-SignedHeaders"],
        content_sha,
        key,
        scope,
        params["X-Amz-Date"],
        region,
        params["X-Amz-Signature"],
    )
    payload = None if content_sha == UNSIGNED else content_sha.lower()
    return Verified(key.account, key.access_key_id, payload, presigned=True)


def _credential(
    credential: str, keys: dict[str, Key], policy: AuthPolicy, malformed: str
) -> tuple[Key, str, str, str]:
    parts = credential.split("/")
    if len(parts) != 5 or parts[3] != "s3" or parts[4] != "aws4_request":
        raise S3Error(malformed, f"The credential is malformed: {credential!r}")
    access_key_id, date_stamp, region = parts[0], parts[1], parts[2]
    key = keys.get(access_key_id)
    if key is None:
        raise S3Error("InvalidAccessKeyId")
    if policy.regions is not None and region not in policy.regions:
        expected = sorted(policy.regions)[-1] if policy.regions else "auto"
        raise S3Error(malformed, f"The region {region!r} is wrong; expecting {expected!r}")
    return key, "/".join(parts[1:]), date_stamp, region


def _parse_amz_date(amz_date: str, headers: dict[str, list[str]]) -> dt.datetime:
    if amz_date:
        try:
            return _amz_date(amz_date)
        except ValueError:
            raise S3Error("AccessDenied", "X-Amz-Date is malformed") from None
    from email.utils import parsedate_to_datetime

    raw = (headers.get("date") or [""])[0]
    try:
        return parsedate_to_datetime(raw).astimezone(dt.UTC)
    except (TypeError, ValueError, OverflowError, IndexError):  # year 10**20: OverflowError
        raise S3Error("AccessDenied", "Missing or malformed X-Amz-Date / Date header") from None


def _check(
    method: str,
    raw_path: str,
    pairs: list[tuple[str, str]],
    headers: dict[str, list[str]],
    signed_headers: str,
    payload_hash: str,
    key: Key,
    scope: str,
    timestamp: str,
    region: str,
    signature: str,
) -> None:
    names = signed_headers.split(";")
    if "host" not in names:
        raise S3Error("AccessDenied", "The host header must be signed")
    _require_signed_vendor_headers(headers, names)
    canonical_headers = ""
    for name in names:
        if name not in headers:
            raise S3Error("SignatureDoesNotMatch", f"Signed header {name!r} is missing")
        value = ",".join(" ".join(v.split()) for v in headers[name])
        canonical_headers += f"{name}:{value}\n"
    signing_key = _signing_key(key.secret, scope.split("/")[0], region)
    for uri, query in _candidates(raw_path, pairs):
        canonical = "\n".join(
            [method.upper(), uri, query, canonical_headers, signed_headers, payload_hash]
        )
        string_to_sign = "\n".join(
            [ALGORITHM, timestamp, scope, hashlib.sha256(canonical.encode()).hexdigest()]
        )
        expected = hmac.digest(signing_key, string_to_sign.encode(), "sha256").hex()
        if hmac.compare_digest(expected, signature.lower()):
            return
    raise S3Error("SignatureDoesNotMatch")


# Tolerated unsigned, as S3 does: a header-auth request's payload hash is in its canonical
# request whether SignedHeaders names the header or not; a presigned request takes its own from
# the query (UNSIGNED-PAYLOAD unless signed there), so the header changes nothing it signed.
_UNSIGNED_ALLOWED = frozenset({"x-amz-content-sha256"})


def _require_signed_vendor_headers(headers: dict[str, list[str]], signed: list[str]) -> None:
    """Every `x-amz-*` header present is signed (S3: 403, HeadersNotSigned). Unsigned, one
    added to a presigned PUT (`x-amz-copy-source`) made it a copy of any object of the signer."""
    unsigned = sorted(
        name
        for name in headers
        if name.startswith("x-amz-") and name not in signed and name not in _UNSIGNED_ALLOWED
    )
    if unsigned:
        raise S3Error(
            "AccessDenied",
            "There were headers present in the request which were not signed",
            HeadersNotSigned=", ".join(unsigned),
        )


def _candidates(raw_path: str, pairs: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """The (uri, query) forms to try, lazily: the first matches for well-behaved clients."""
    if _CANONICAL_PATH.fullmatch(raw_path):
        uri_norm = raw_path or "/"
    else:
        uri_norm = quote(unquote(raw_path), safe="/~") or "/"
    query_norm = "&".join(
        f"{k}={v}" for k, v in sorted((_canonical(k), _canonical(v)) for k, v in pairs)
    )
    yield uri_norm, query_norm
    query_raw = "&".join(f"{k}={v}" for k, v in sorted(pairs))
    found = [(uri_norm, query_norm)]
    for candidate in (
        (raw_path or "/", query_raw),
        (uri_norm, query_raw),
        (raw_path or "/", query_norm),
    ):
        if candidate not in found:
            found.append(candidate)
            yield candidate


def unquoted(text: str) -> str:
    """`unquote(text)`; query names and values repeat (credentials), so short ones are kept."""
    if "%" not in text:
        return text
    if len(text) > _CACHED_MAX_LEN:
        return unquote(text)
    return _unquote_cached(text)


_unquote_cached = lru_cache(maxsize=1024)(unquote)


def _canonical(component: str) -> str:
    """`component` decoded and re-encoded as SigV4 wants (RFC 3986 unreserved kept)."""
    if _CANONICAL_COMPONENT.fullmatch(component):
        return component  # the common case: names, dates, numbers
    if len(component) > _CACHED_MAX_LEN:
        return _recode(component)
    return _recode_cached(component)


def _recode(component: str) -> str:
    return quote(unquote(component), safe="-_.~")


# credentials, signed-header lists and prefixes repeat from request to request
_recode_cached = lru_cache(maxsize=1024)(_recode)


@lru_cache(maxsize=64)  # a presigned URL carries the same date on every use
def _amz_date(text: str) -> dt.datetime:
    """`20240501T120000Z` as an aware datetime; ValueError for any other form.

    SigV4's request date is fixed-width ISO 8601 basic; strptime also read one-digit fields
    (`20261128T12000Z` was served, defects13), so only the 16-character form is parsed."""
    digits = text[:8] + text[9:15]
    if len(text) != 16 or text[8] != "T" or text[15] != "Z":
        raise ValueError(f"not YYYYMMDD'T'HHMMSS'Z': {text!r}")
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"not YYYYMMDD'T'HHMMSS'Z': {text!r}")
    return dt.datetime(
        int(text[:4]),
        int(text[4:6]),
        int(text[6:8]),
        int(text[9:11]),
        int(text[11:13]),
        int(text[13:15]),
        tzinfo=dt.UTC,
    )


def _split_query(raw_query: str) -> list[tuple[str, str]]:
    pairs = []
    for item in raw_query.split("&"):
        if item:
            name, _, value = item.partition("=")
            pairs.append((name, value))
    return pairs


@lru_cache(maxsize=64)  # four HMACs per request otherwise; the key changes once a day
def _signing_key(secret: str, date_stamp: str, region: str) -> bytes:
    k = hmac.digest(("AWS4" + secret).encode(), date_stamp.encode(), "sha256")
    for part in (region, "s3", "aws4_request"):
        k = hmac.digest(k, part.encode(), "sha256")
    return k
