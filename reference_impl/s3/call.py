"""One S3 request, resolved: who is calling, which bucket and key, which query parameters."""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import lru_cache

from starlette.requests import Request

from reference_impl import transfer_codings
from reference_impl.context import ServerContext
from reference_impl.identity import Identity
from reference_impl.s3 import sdk_checksum, sigv4
from reference_impl.s3.chunked import (
    EMPTY_SHA256,
    AwsChunkedDecoder,
    StreamingAuth,
    is_streaming,
    refuse_unstreamed_framing,
)
from reference_impl.s3.repeated_headers import refuse_repeated
from reference_impl.services.domains import MalformedHost, normalise_host
from reference_impl.wire.s3.call_view import CallView
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.uri import utf8_unquote
from reference_impl.wire.s3.xml_text import fits_xml

MAX_XML_BODY = 4 * 1024 * 1024
_HEX_SHA256 = re.compile(r"\A[0-9a-fA-F]{64}\Z")
SIGNING_QUERY_KEYS = {
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-SignedHeaders",
    "X-Amz-Signature",
    "X-Amz-Security-Token",
    "X-Amz-Content-Sha256",
}


@dataclass
class Call(CallView):
    """The S3 surface's call: a CallView with its signed payload and aws-chunked body."""

    payload_sha256: str | None = None  # the signed body hash, None when unsigned
    streaming: StreamingAuth | None = None  # an aws-chunked body (STREAMING-* content hash)
    decoder: AwsChunkedDecoder | None = None  # set by body_stream() for an aws-chunked body

    def body_stream(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive; an aws-chunked body decoded (and checked) on the way.

        After the stream is exhausted, `self.decoder.checksums` holds the verified checksums.
        """
        self.chunked()  # a body in a transfer coding the listener did not undo: NotImplemented
        if self.streaming is None:
            return self.request.stream()
        self.decoder = AwsChunkedDecoder(self.streaming, self.request.headers)
        return self.decoder.decode(self.request.stream())

    def chunked(self) -> bool:
        """Did the body come with `Transfer-Encoding: chunked` (any letter case, RFC 9112 7)?

        The listener takes the chunked framing off and applies no other coding: a body sent
        `gzip, chunked` would be stored still gzipped, so any other coding is NotImplemented
        (RFC 9112 6.1; S3 answers the same)."""
        sent = self.request.headers.getlist("transfer-encoding")
        if transfer_codings.unapplied(sent):
            raise S3Error("NotImplemented", Header="Transfer-Encoding")
        return bool(transfer_codings.codings(sent))

    def declared_length(self) -> str | None:
        """The body size the client declared: the decoded size of an aws-chunked body."""
        if self.streaming is not None:
            return self.header("x-amz-decoded-content-length")
        return self.header("content-length")

    def checksum_headers(self) -> dict[str, str]:
        """`x-amz-checksum-*` response headers for the checksums an aws-chunked body proved."""
        found = self.decoder.checksums if self.decoder is not None else {}
        return {f"x-amz-checksum-{alg}": value for alg, value in found.items()}

    async def small_body(self) -> bytes:
        """Read a bounded body (XML documents), checking the signed SHA-256 and Content-MD5."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in self.body_stream():
            size += len(chunk)
            if size > MAX_XML_BODY:
                raise S3Error("MalformedXML", "The request body is too large")
            chunks.append(chunk)
        body = b"".join(chunks)
        if self.payload_sha256 and hashlib.sha256(body).hexdigest() != self.payload_sha256:
            raise S3Error("XAmzContentSHA256Mismatch")
        check_content_md5(self.joined("content-md5"), hashlib.md5(body).digest())
        return body


def check_content_md5(header: str | None, digest: bytes) -> None:
    if header is None:
        return
    import base64
    import binascii

    try:
        declared = base64.b64decode(header, validate=True)
    except (binascii.Error, ValueError):
        raise S3Error("InvalidDigest") from None
    if len(declared) != 16:
        raise S3Error("InvalidDigest")
    if declared != digest:
        raise S3Error("BadDigest")


def keys_of(ctx: ServerContext) -> dict[str, sigv4.Key]:
    """The signing keys by access key id (shared between requests: do not change it)."""
    return _keys(ctx.identity)


@lru_cache(maxsize=8)  # one identity per server: built once, not per request
def _keys(ident: Identity) -> dict[str, sigv4.Key]:
    return {
        ident.access_key_id: sigv4.Key(
            ident.access_key_id, ident.secret_access_key, ident.account_id
        ),
        ident.other_access_key_id: sigv4.Key(
            ident.other_access_key_id, ident.other_secret_access_key, ident.other_account_id
        ),
    }


def resolve(ctx: ServerContext, request: Request) -> Call:
    """Authenticate, then find bucket and key from the Host (virtual-hosted) or the path."""
    raw_path = request.scope.get("raw_path", b"").decode("latin-1") or request.url.path
    raw_path = raw_path.split("?", 1)[0]
    raw_query = request.scope.get("query_string", b"").decode("latin-1")
    try:  # a key, prefix or marker that is not UTF-8 would alias others: refused, before auth
        path = utf8_unquote(raw_path)
        utf8_unquote(raw_query)
    except ValueError:
        raise S3Error("InvalidURI") from None
    refuse_repeated(request.scope["headers"])  # a singleton sent twice: 400, before auth
    if ctx.profile.put_object_checksums:  # from the date S3 checksums are taken
        sdk_checksum.check(request.headers)  # the SDK's algorithm names a checksum it carries
    keys = keys_of(ctx)
    host_account, host_bucket = _parse_host(request, keys)  # a malformed Host: 400, before auth
    profile = ctx.profile
    if profile.verify_signatures:
        regions = profile.s3_signing_regions
        policy = _policy(
            None if regions is None else frozenset(regions),
            int(profile.s3_max_clock_skew_seconds),
            bool(profile.s3_presigned_urls),
            not ctx.profile.deviations.presign_no_expiry,
        )
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.scope["headers"]]
        try:
            verified = sigv4.verify(
                request.method,
                raw_path,
                raw_query,
                headers,
                keys,
                policy,
                dt.datetime.now(dt.UTC),
            )
        except S3Error as exc:
            if exc.code == "Unauthorized" and ctx.profile.deviations.unsigned_access_denied:
                raise S3Error("AccessDenied", "Anonymous access is not allowed") from None
            raise
        account, payload = verified.account, verified.payload_sha256
        streaming = verified.streaming
    else:
        account, payload = _unverified_account(request, keys, ctx.identity.account_id), None
        streaming = _unverified_streaming(request)
    content_sha = request.headers.get("x-amz-content-sha256", "")
    hashed = streaming is not None or payload is not None or bool(_HEX_SHA256.match(content_sha))
    encodings = request.headers.getlist("content-encoding")  # several lines are one list
    refuse_unstreamed_framing(", ".join(encodings) if encodings else None, hashed)

    if ctx.profile.deviations.one_account:
        account = ctx.identity.account_id
    if ctx.profile.deviations.host_ignored:
        host_account = host_bucket = None
    if host_account is not None and host_account != account:
        raise S3Error("AccessDenied", "The credentials do not grant access to this account")
    query = {}
    for item in raw_query.split("&"):
        if item:
            name, _, value = item.partition("=")
            name = sigv4.unquoted(name)
            if name not in SIGNING_QUERY_KEYS:
                query[name] = sigv4.unquoted(value)
    if host_bucket is not None:
        bucket: str | None = host_bucket
        key: str | None = path[1:] or None
    else:
        first, sep, rest = path[1:].partition("/")
        bucket = first or None
        key = rest if sep and rest else None
    if key is not None and not fits_xml(key):  # no such key is stored: every page stays XML
        message = "Object keys hold no control characters but TAB and LF (XML 1.0)"
        raise S3Error("InvalidArgument", message, ArgumentName="key")
    if (
        profile.deviations.refuse_signed_payload
        and payload not in (None, EMPTY_SHA256)
        and key is not None
        and request.method in ("PUT", "POST")
    ):
        raise S3Error("NotImplemented", "Signed, unchunked payloads are not supported")
    return Call(request, account, bucket, key, query, payload, streaming)


@lru_cache(maxsize=16)  # the same few profile values on every request
def _policy(
    regions: frozenset[str] | None, skew: int, presigned: bool, check_expiry: bool
) -> sigv4.AuthPolicy:
    return sigv4.AuthPolicy(regions, skew, presigned, check_expiry)


def _unverified_streaming(request: Request) -> StreamingAuth | None:
    """With signature checks off, an aws-chunked body is still decoded (signatures unchecked)."""
    mode = request.headers.get("x-amz-content-sha256", "")
    if not is_streaming(mode):
        return None
    return StreamingAuth(mode, None, "", "", "")


def _unverified_account(request: Request, keys: dict[str, sigv4.Key], default: str) -> str:
    auth = request.headers.get("authorization", "") or request.query_params.get(
        "X-Amz-Credential", ""
    )
    for access_key_id, key in keys.items():
        if access_key_id in auth:
            return key.account
    return default


def _parse_host(request: Request, keys: dict[str, sigv4.Key]) -> tuple[str | None, str | None]:
    """`{bucket}.{account}.{storage_host}` or `{account}.{storage_host}`; else path-style.

    A Host that is not `uri-host [":" port]` (a port above 65535 or not digits, a space), or two
    Host lines, is 400 InvalidArgument (RFC 9112 section 3.2 MUST), read by the same parser as
    the public listener's; an empty Host, or none on HTTP/1.0, is path-style. HTTP/1.1 without
    Host is 400 too (the same MUST)."""
    hosts = request.headers.getlist("host")
    try:
        if len(hosts) > 1 or (not hosts and request.scope.get("http_version") == "1.1"):
            raise MalformedHost(hosts[0] if hosts else "")
        host = hosts[0] if hosts else ""
        return _host_parts(host, frozenset(key.account for key in keys.values()))
    except MalformedHost:
        message = "The Host header is not a host name with an optional port"
        raise S3Error("InvalidArgument", message) from None


@lru_cache(maxsize=256)  # clients send the same few Host values; parsing an IP is not free
def _host_parts(host: str, accounts: frozenset[str]) -> tuple[str | None, str | None]:
    if not host.strip(" \t"):
        return None, None
    name = normalise_host(host)  # lower case, port and trailing dot cut; else MalformedHost
    try:
        ipaddress.ip_address(name.strip("[]"))
        return None, None
    except ValueError:
        pass
    labels = name.split(".")
    for index, label in enumerate(labels):
        if label in accounts:
            bucket = ".".join(labels[:index]) or None
            return label, bucket
    return None, None
