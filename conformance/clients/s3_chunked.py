"""aws-chunked request bodies built by hand: signed chunks, unsigned chunks with trailers.

botocore sends only the unsigned-trailer form (and only over HTTPS), never signed chunks, so
tests that need `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`, a tampered chunk or a wrong trailer build
the body here and send it through the raw wire client, seeded by the header signature it made.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import zlib
from collections.abc import Callable, Mapping, Sequence

from conformance.clients.s3_wire import WireClient, WireReply

SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
_SIG_PLACEHOLDER = "0" * 64
_CREDENTIAL_RE = re.compile(r"Credential=[^/]+/([^,]+),.*Signature=([0-9a-f]+)")


def _crc32c(data: bytes) -> bytes:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return (crc ^ 0xFFFFFFFF).to_bytes(4, "big")


CHECKSUMS: dict[str, Callable[[bytes], bytes]] = {
    "crc32": lambda data: (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big"),
    "crc32c": _crc32c,  # bit-at-a-time: test bodies are small
    "sha1": lambda data: hashlib.sha1(data).digest(),
    "sha256": lambda data: hashlib.sha256(data).digest(),
}


def checksum(algorithm: str, data: bytes) -> str:
    """Base64 S3 checksum of `data` (`crc32`, `crc32c`, `sha1`, `sha256`)."""
    return base64.b64encode(CHECKSUMS[algorithm](data)).decode()


class ChunkSigner:
    """Chains chunk signatures from a seed, as the server recomputes them."""

    def __init__(self, secret: str, timestamp: str, scope: str, seed: str) -> None:
        date, region, service, _ = scope.split("/")
        key = hmac.new(("AWS4" + secret).encode(), date.encode(), hashlib.sha256).digest()
        for part in (region, service, "aws4_request"):
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        self.key, self.timestamp, self.scope, self.previous = key, timestamp, scope, seed

    def _sign(self, lines: Sequence[str]) -> str:
        text = "\n".join(lines)
        self.previous = hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()
        return self.previous

    def chunk(self, data: bytes) -> str:
        return self._sign(
            [
                "AWS4-HMAC-SHA256-PAYLOAD",
                self.timestamp,
                self.scope,
                self.previous,
                EMPTY_SHA256,
                hashlib.sha256(data).hexdigest(),
            ]
        )

    def trailer(self, canonical: str) -> str:
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        return self._sign(
            ["AWS4-HMAC-SHA256-TRAILER", self.timestamp, self.scope, self.previous, digest]
        )


def encode(
    mode: str,
    chunks: Sequence[bytes],
    trailers: Mapping[str, str] | None = None,
    signer: ChunkSigner | None = None,
) -> bytes:
    """The aws-chunked body of `chunks` (a final 0-length chunk is added) in `mode`."""
    out = bytearray()
    for data in [*chunks, b""]:
        size = f"{len(data):x}"
        if mode == UNSIGNED_TRAILER:
            out += f"{size}\r\n".encode()
        else:
            signature = signer.chunk(data) if signer else _SIG_PLACEHOLDER
            out += f"{size};chunk-signature={signature}\r\n".encode()
        if data:
            out += data + b"\r\n"
    if mode == SIGNED:
        out += b"\r\n"
        return bytes(out)
    canonical = "".join(f"{name}:{value}\n" for name, value in (trailers or {}).items())
    for name, value in (trailers or {}).items():
        out += f"{name}:{value}\r\n".encode()
    if mode == SIGNED_TRAILER:
        signature = signer.trailer(canonical) if signer else _SIG_PLACEHOLDER
        out += f"x-amz-trailer-signature:{signature}\r\n".encode()
    out += b"\r\n"
    return bytes(out)


def put_chunked(
    wire: WireClient,
    bucket: str,
    key: str,
    chunks: Sequence[bytes],
    mode: str = SIGNED,
    trailers: Mapping[str, str] | None = None,
    decoded_length: int | None = None,
    tamper: Callable[[bytes], bytes] | None = None,
    query: Sequence[tuple[str, str]] = (),
    content_encoding: str = "aws-chunked",
    extra_headers: Mapping[str, str] | None = None,
) -> WireReply:
    """PUT an aws-chunked body; `tamper` may alter the encoded body after signing;
    `extra_headers` are sent (and signed) as well."""
    length = sum(len(c) for c in chunks) if decoded_length is None else decoded_length
    headers = {
        **(extra_headers or {}),
        "Content-Encoding": content_encoding,
        "x-amz-decoded-content-length": str(length),
    }  # Content-Length is left unsigned, so that `tamper` can change the body's size
    if trailers:
        headers["x-amz-trailer"] = ",".join(trailers)
    prepared = wire.prepare("PUT", bucket, key, query=query, headers=headers, payload_hash=mode)
    signer = None
    if mode != UNSIGNED_TRAILER:
        match = _CREDENTIAL_RE.search(prepared.headers["Authorization"])
        assert match, prepared.headers["Authorization"]
        secret = wire.credentials.secret_key
        signer = ChunkSigner(secret, prepared.headers["X-Amz-Date"], *match.groups())
    body = encode(mode, chunks, trailers, signer)
    if tamper is not None:
        body = tamper(body)
    prepared.headers["Content-Length"] = str(len(body))
    prepared.body = body
    return wire.send(prepared)
