"""aws-chunked request bodies: decoded while they stream, chunk signatures and trailers checked.

Current AWS SDKs send uploads as `Content-Encoding: aws-chunked` with `x-amz-content-sha256`
set to one of the STREAMING-* values: signed chunks (each chunk's signature chains from the
previous one, seeded by the Authorization header's), or unsigned chunks followed by a trailer
holding an `x-amz-checksum-*` value. The decoder yields the object's bytes as they arrive (the
blob store publishes nothing until the whole body checked out, so yielding unverified bytes is
safe) and raises an S3Error at the first framing, signature, length or checksum problem.
Memory stays flat: a chunk's data is never buffered whole, only hashed and passed on.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from reference_impl.numbers import is_decimal
from reference_impl.s3 import chunked_checksums as checksums
from reference_impl.wire.s3.errors import S3Error

CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")  # chunk-size = 1*HEXDIG (RFC 9112)
SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
MODES = frozenset({SIGNED, SIGNED_TRAILER, UNSIGNED_TRAILER})
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
MAX_LINE = 4096  # a chunk header or trailer line; longer is malformed, never buffered
MAX_TRAILER_LINES = 16
SINGLE = "Expecting a single x-amz-checksum- header"


@dataclass(frozen=True)
class StreamingAuth:
    """What a streaming upload's chunk signatures chain from (from the verified request)."""

    mode: str  # the x-amz-content-sha256 value, one of MODES
    signing_key: bytes | None  # None: signatures not verified (profile verify_signatures off)
    timestamp: str  # x-amz-date of the request
    scope: str  # date/region/s3/aws4_request
    seed_signature: str  # the Authorization header's signature

    @property
    def signed_chunks(self) -> bool:
        return self.mode in (SIGNED, SIGNED_TRAILER)

    @property
    def has_trailer(self) -> bool:
        return self.mode in (SIGNED_TRAILER, UNSIGNED_TRAILER)


def is_streaming(content_sha256: str) -> bool:
    return content_sha256.startswith("STREAMING-")


def refuse_unstreamed_framing(content_encoding: str | None, hashed: bool) -> None:
    """Content-Encoding aws-chunked under an unsigned, unstreamed payload is refused.

    The framing is decoded only under a STREAMING-* content hash; with a hex SHA-256 the hash
    covers the bytes as sent, so those bytes are the object. With UNSIGNED-PAYLOAD nothing says
    whether the body is framed, and S3 answers 400 InvalidArgument rather than guess (storing
    the framing as data would corrupt the object). See docs/reference-choices.md.
    """
    if hashed or content_encoding is None:
        return
    if "aws-chunked" in (token.strip().lower() for token in content_encoding.split(",")):
        raise S3Error(
            "InvalidArgument",
            "Content-Encoding aws-chunked needs a STREAMING-* x-amz-content-sha256, "
            "not UNSIGNED-PAYLOAD",
            ArgumentName="Content-Encoding",
            ArgumentValue=content_encoding,
        )


def _malformed(what: str) -> S3Error:
    return S3Error("InvalidRequest", f"Malformed aws-chunked body: {what}")


def _incomplete() -> S3Error:
    return S3Error("IncompleteBody")


class _Reader:
    """Lines and counted byte runs over an async stream of arbitrary pieces."""

    def __init__(self, source: AsyncIterator[bytes]) -> None:
        self._source = source
        self._buf = bytearray()
        self._eof = False

    async def _fill(self) -> bool:
        if self._eof:
            return False
        try:
            piece = await self._source.__anext__()
        except StopAsyncIteration:
            self._eof = True
            return False
        self._buf += piece
        return True

    async def line(self) -> bytes:
        """The next line without its CRLF (a bare LF is tolerated)."""
        start = 0
        while True:
            index = self._buf.find(b"\n", start, MAX_LINE + 2)  # the CRLF may end it there
            if index >= 0:
                line = bytes(self._buf[:index])
                del self._buf[: index + 1]
                line = line[:-1] if line.endswith(b"\r") else line
                if len(line) > MAX_LINE:  # a bare LF one byte further
                    raise _malformed("header line too long")
                return line
            if len(self._buf) > MAX_LINE + 1:  # longer however its bytes arrived
                raise _malformed("header line too long")
            start = len(self._buf)
            if not await self._fill():
                raise _incomplete()

    async def run(self, size: int) -> AsyncIterator[bytes]:
        """Exactly `size` bytes, in the pieces they arrived in."""
        remaining = size
        while remaining:
            if not self._buf and not await self._fill():
                raise _incomplete()
            piece = bytes(self._buf[:remaining])
            del self._buf[: len(piece)]
            remaining -= len(piece)
            yield piece

    async def at_end(self) -> bool:
        while not self._buf:
            if not await self._fill():
                return True
        return False


class AwsChunkedDecoder:
    """One request's aws-chunked body; after `decode` is exhausted, `checksums` holds the
    verified `x-amz-checksum-*` values (algorithm -> base64) the client sent."""

    def __init__(self, auth: StreamingAuth, headers: Mapping[str, str]) -> None:
        self.auth = auth
        declared = headers.get("x-amz-decoded-content-length")
        if declared is None:
            raise S3Error("MissingContentLength", "x-amz-decoded-content-length is required")
        if not is_decimal(declared.strip()):
            raise S3Error("InvalidArgument", "x-amz-decoded-content-length is not a number")
        self.decoded_length = int(declared)
        self.trailer_names = [
            name.strip().lower()
            for name in (headers.get("x-amz-trailer") or "").split(",")
            if name.strip()
        ]
        if self.trailer_names and not auth.has_trailer:
            raise S3Error("InvalidRequest", "x-amz-trailer needs a *-TRAILER content hash")
        self.expected: dict[str, str | None] = {}  # algorithm -> value (None: from trailer)
        for name in self.trailer_names:
            algorithm = checksums.algorithm_of_header(name)
            if algorithm is not None:
                self.expected[algorithm] = None
        claimed: dict[str, list[str]] = {}  # two lines of a header are one joined value
        for name, value in headers.items():
            algorithm = checksums.algorithm_of_header(name)
            if algorithm is not None:
                claimed.setdefault(algorithm, []).append(value.strip())
        for algorithm, values in claimed.items():
            if algorithm in self.expected:  # a header and a trailer: two claims, not one
                raise S3Error("InvalidRequest", SINGLE)
            self._check_form(algorithm, ",".join(values))
            self.expected[algorithm] = ",".join(values)
        if len(self.expected) > 1:
            raise S3Error("InvalidRequest", SINGLE)
        self.checksums: dict[str, str] = {}
        self._previous = auth.seed_signature

    @staticmethod
    def _check_form(algorithm: str, value: str) -> None:
        if not checksums.well_formed(algorithm, value):
            raise S3Error(
                "InvalidRequest", f"Value for x-amz-checksum-{algorithm} header is invalid."
            )

    def _sign(self, kind: str, payload_hash: str, extra: str | None = None) -> str | None:
        key = self.auth.signing_key
        if key is None:
            return None
        parts = [kind, self.auth.timestamp, self.auth.scope, self._previous]
        if extra is not None:
            parts.append(extra)
        parts.append(payload_hash)
        return hmac.digest(key, "\n".join(parts).encode(), "sha256").hex()  # C one-shot

    async def decode(self, source: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        reader = _Reader(source)
        accumulators = {alg: checksums.new_checksum(alg) for alg in self.expected}
        total = 0
        while True:
            size, signature = self._chunk_header(await reader.line())
            chunk_hash = hashlib.sha256() if self.auth.signed_chunks else None
            async for piece in reader.run(size):
                total += len(piece)
                if total > self.decoded_length:
                    raise _incomplete()
                if chunk_hash is not None:
                    chunk_hash.update(piece)
                for accumulator in accumulators.values():
                    accumulator.update(piece)
                yield piece
            if chunk_hash is not None:
                self._verify_chunk(signature, chunk_hash.hexdigest())
            if size == 0:
                break
            if await reader.line() != b"":
                raise _malformed("chunk data longer than its declared size")
        if total != self.decoded_length:
            raise _incomplete()
        trailers = await self._trailers(reader) if self.auth.has_trailer else {}
        while not await reader.at_end():  # the closing CRLF(s); anything else is not ours
            if await reader.line() != b"":
                raise _malformed("data after the final chunk")
        for algorithm, accumulator in accumulators.items():
            sent = self.expected[algorithm] or trailers.get(f"x-amz-checksum-{algorithm}")
            if sent is None:
                raise S3Error("MalformedTrailerError", f"x-amz-checksum-{algorithm} is missing")
            self._check_form(algorithm, sent)
            computed = checksums.encode(accumulator.digest())
            if computed != sent.strip():
                raise S3Error(
                    "BadDigest",
                    f"The {algorithm.upper()} you specified did not match the calculated checksum.",
                )
            self.checksums[algorithm] = computed

    def _chunk_header(self, line: bytes) -> tuple[int, str | None]:
        size_text, _, extension = line.partition(b";")
        digits = size_text.rstrip(b" \t")  # BWS before ";" (RFC 9112 chunk-ext), nothing else
        if not CHUNK_SIZE.fullmatch(digits):  # int(x, 16) also took 0x2, +2, 1_1, " 2"
            raise _malformed("chunk size is not 1*HEXDIG (at most 16 digits)")
        size = int(digits, 16)
        signature: str | None = None
        if self.auth.signed_chunks:
            name, _, value = extension.decode("latin-1").partition("=")
            if name.strip() != "chunk-signature" or not value:
                raise S3Error("IncompleteBody", "A chunk has no chunk-signature")
            signature = value.strip().lower()
        return size, signature

    def _verify_chunk(self, signature: str | None, data_hash: str) -> None:
        expected = self._sign("AWS4-HMAC-SHA256-PAYLOAD", data_hash, EMPTY_SHA256)
        if expected is None:
            return
        if signature is None or not hmac.compare_digest(expected, signature):
            raise S3Error("SignatureDoesNotMatch", "A chunk signature does not match")
        self._previous = expected

    async def _trailers(self, reader: _Reader) -> dict[str, str]:
        """Trailer lines up to the empty line; the signed variant ends with its signature."""
        found: dict[str, str] = {}
        canonical = ""
        signature: str | None = None
        for _ in range(MAX_TRAILER_LINES + 1):
            line = (await reader.line()).decode("latin-1")
            if line == "" and (found or signature is not None or await reader.at_end()):
                break
            if line == "":  # the CRLF closing the 0-length chunk, before the trailers
                continue
            name, sep, value = line.partition(":")
            if not sep:
                raise S3Error("MalformedTrailerError", "A trailer line has no colon")
            name = name.strip().lower()
            if name == "x-amz-trailer-signature":
                signature = value.strip().lower()
                continue
            if name in found:  # the last line won: a wrong first checksum went unread
                raise S3Error("MalformedTrailerError", f"Trailer sent twice: {name}")
            found[name] = value.strip()
            canonical += f"{name}:{value.strip()}\n"
        else:
            raise S3Error("MalformedTrailerError", "Too many trailer lines")
        missing = [name for name in self.trailer_names if name not in found]
        if missing:
            raise S3Error("MalformedTrailerError", f"Announced trailer missing: {missing[0]}")
        if self.auth.signed_chunks:
            expected = self._sign(
                "AWS4-HMAC-SHA256-TRAILER", hashlib.sha256(canonical.encode()).hexdigest()
            )
            if expected is not None and (
                signature is None or not hmac.compare_digest(expected, signature)
            ):
                raise S3Error("SignatureDoesNotMatch", "The trailer signature does not match")
        return found
