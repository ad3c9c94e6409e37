"""PutObject x-vendor-checksum-* headers: verified on upload, returned on GET / HEAD."""

from __future__ import annotations

import base64
import hashlib
import zlib
from typing import Any

import pytest

from conformance.clients import s3_chunked as chunked

BODY = b"checksummed body " * 64


def _b64(digest: bytes) -> str:
    return base64.b64encode(digest).decode()


def _crc32c(data: bytes) -> bytes:
    """CRC-32C (Castagnoli), bitwise: small bodies only."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return (crc ^ 0xFFFFFFFF).to_bytes(4, "big")


CHECKSUMS = {
    "sha256": _b64(hashlib.sha256(BODY).digest()),
    "sha1": _b64(hashlib.sha1(BODY).digest()),
    "crc32": _b64(zlib.crc32(BODY).to_bytes(4, "big")),
    "crc32c": _b64(_crc32c(BODY)),
}
WRONG = _b64(hashlib.sha256(b"something else").digest())


def _put_and_read_back(s3: Any, bucket: str, key: str, algorithm: str) -> None:
    header = s3.wire.vendor(f"checksum-{algorithm}")
    s3.wire.put_object(bucket, key, BODY, headers={header: CHECKSUMS[algorithm]}).assert_ok()
    mode = {s3.wire.vendor("checksum-mode"): "ENABLED"}
    got = s3.wire.get_object(bucket, key, headers=mode).assert_ok()
    assert got.body == BODY
    assert got.header(header) == CHECKSUMS[algorithm], f"GET {header}: {got.header(header)!r}"
    head = s3.wire.request("HEAD", bucket, key, headers=mode).assert_ok()
    assert head.header(header) == CHECKSUMS[algorithm], f"HEAD {header}: {head.header(header)!r}"


@pytest.mark.rule("storage.put-object.checksum-sha256")
def test_sha256_accepted_and_returned(s3, bucket, names):
    """A correct SHA-256 checksum is accepted and returned on GET and HEAD."""
    _put_and_read_back(s3, bucket, names.key(), "sha256")


@pytest.mark.rule("storage.put-object.checksum-sha1")
def test_sha1_accepted_and_returned(s3, bucket, names):
    """A correct SHA-1 checksum is accepted and returned on GET and HEAD."""
    _put_and_read_back(s3, bucket, names.key(), "sha1")


@pytest.mark.rule("storage.put-object.checksum-crc32")
@pytest.mark.parametrize("algorithm", ["crc32", "crc32c"])
def test_crc_accepted_and_returned(s3, bucket, names, algorithm):
    """Correct CRC32 / CRC32C checksums are accepted and returned on GET and HEAD."""
    _put_and_read_back(s3, bucket, names.key(), algorithm)


@pytest.mark.rule("storage.put-object.checksum-crc32")
@pytest.mark.parametrize("algorithm", ["crc32", "crc32c"])
def test_crc_mismatch_is_bad_digest(s3, bucket, names, algorithm):
    """A CRC32 / CRC32C of other bytes (well-formed, 4 bytes) is refused with 400 BadDigest and
    nothing is stored: a target that takes the header is held to what it claims to check."""
    key = names.key()
    other = b"other " + BODY
    wrong = _b64(zlib.crc32(other).to_bytes(4, "big") if algorithm == "crc32" else _crc32c(other))
    header = s3.wire.vendor(f"checksum-{algorithm}")
    s3.wire.put_object(bucket, key, BODY, headers={header: wrong}).assert_error(400, "BadDigest")
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.parametrize(
    "algorithm",
    [
        pytest.param("sha256", marks=pytest.mark.rule("storage.put-object.checksum-sha256")),
        pytest.param("sha1", marks=pytest.mark.rule("storage.put-object.checksum-sha1")),
    ],
)
def test_boto3_checksum_algorithm(s3, bucket, names, algorithm):
    """boto3's ChecksumAlgorithm upload is accepted and its checksum read back."""
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=BODY, ChecksumAlgorithm=algorithm.upper())
    head = s3.boto.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
    field = f"Checksum{algorithm.upper()}"
    assert field in head, f"HeadObject (ChecksumMode ENABLED) returned no {field}"
    assert head[field] == CHECKSUMS[algorithm], (
        f"{field} {head[field]!r}, sent {CHECKSUMS[algorithm]!r}"
    )


@pytest.mark.rule("storage.put-object.checksum-mismatch")
@pytest.mark.parametrize("algorithm", ["sha256", "sha1"])
def test_mismatch_is_bad_digest(s3, bucket, names, algorithm):
    """A checksum that does not match the body is refused with 400 BadDigest; nothing stored."""
    key = names.key()
    wrong = WRONG if algorithm == "sha256" else _b64(hashlib.sha1(b"other").digest())
    header = s3.wire.vendor(f"checksum-{algorithm}")
    s3.wire.put_object(bucket, key, BODY, headers={header: wrong}).assert_error(400, "BadDigest")
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.put-object.content-md5-mismatch")
def test_content_md5_mismatch_is_bad_digest(s3, bucket, names):
    """A Content-MD5 that does not match the body is refused with 400 BadDigest."""
    key = names.key()
    wrong = _b64(hashlib.md5(b"other").digest())
    reply = s3.wire.put_object(bucket, key, BODY, headers={"Content-MD5": wrong})
    reply.assert_error(400, "BadDigest")
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.put-object.content-md5-mismatch")
def test_content_md5_outside_base64_is_refused(s3, bucket, names):
    """Content-MD5 is the base64 of the body's MD5 (RFC 1864): the body's own digest with a
    character outside the base64 alphabet inserted is no such value, so it does not match
    and the PUT is refused with a 400 (BadDigest, or S3's InvalidDigest for a value that is no
    digest) and stores nothing. A lenient decoder drops the stray character, finds the right
    digest and stores the object."""
    key = names.key()
    right = _b64(hashlib.md5(BODY).digest())
    garbled = right[:4] + "*" + right[4:]
    reply = s3.wire.put_object(bucket, key, BODY, headers={"Content-MD5": garbled})
    assert reply.status == 400 and reply.error_code in ("BadDigest", "InvalidDigest"), (
        f"Content-MD5 {garbled!r}: {reply.describe()}"
    )
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.put-object.checksum-mismatch")
@pytest.mark.parametrize("mode", ["signed-trailer", "unsigned-trailer"])
def test_trailing_checksum_mismatch_is_bad_digest(s3, bucket, names, mode):
    """The checksum sent as an aws-chunked trailer is verified like the header: 400 BadDigest.

    A checksum can arrive in a header or, announced by x-amz-trailer, after the body; an
    implementer may verify only the header form. A matching trailer is the control.
    """
    wire_mode = chunked.SIGNED_TRAILER if mode == "signed-trailer" else chunked.UNSIGNED_TRAILER
    chunks = [b"a" * 8192, b"trailing checksum"]
    name = s3.wire.vendor("checksum-sha256")
    right = {name: chunked.checksum("sha256", b"".join(chunks))}
    chunked.put_chunked(s3.wire, bucket, names.key(), chunks, wire_mode, trailers=right).assert_ok()
    key = names.key()
    wrong = {name: chunked.checksum("sha256", b"other")}
    reply = chunked.put_chunked(s3.wire, bucket, key, chunks, wire_mode, trailers=wrong)
    reply.assert_error(400, "BadDigest")
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.parametrize(
    "algorithm",
    [
        pytest.param("sha256", marks=pytest.mark.rule("storage.put-object.checksum-sha256")),
        pytest.param("sha1", marks=pytest.mark.rule("storage.put-object.checksum-sha1")),
    ],
)
def test_checksum_of_an_unsigned_payload_is_verified(s3, bucket, names, algorithm):
    """The checksum header of a PUT signed with UNSIGNED-PAYLOAD (what presigned uploads and
    SDKs over TLS send) is checked as for a signed body: the right one is kept and returned,
    a wrong one is 400 BadDigest. An implementer may verify it only against the payload hash it
    already computed to check a signed body, and have none here."""
    header = s3.wire.vendor(f"checksum-{algorithm}")
    key = names.key()
    sent = {header: CHECKSUMS[algorithm]}
    unsigned = {"payload_hash": "UNSIGNED-PAYLOAD"}
    s3.wire.request("PUT", bucket, key, body=BODY, headers=sent, **unsigned).assert_ok()
    mode = {s3.wire.vendor("checksum-mode"): "ENABLED"}
    head = s3.wire.request("HEAD", bucket, key, headers=mode).assert_ok()
    assert head.header(header) == CHECKSUMS[algorithm], f"HEAD {header}: {head.header(header)!r}"
    other = names.key()
    wrong = {header: WRONG if algorithm == "sha256" else _b64(hashlib.sha1(b"other").digest())}
    reply = s3.wire.request("PUT", bucket, other, body=BODY, headers=wrong, **unsigned)
    reply.assert_error(400, "BadDigest")
    s3.wire.get_object(bucket, other).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.put-object.checksum-mismatch")
@pytest.mark.parametrize(("right", "wrong"), [("sha1", "sha256"), ("sha256", "sha1")],
                         ids=["right-sha1-wrong-sha256", "wrong-sha1-right-sha256"])  # fmt: skip
def test_wrong_checksum_beside_a_right_one_is_refused(s3, bucket, names, right, wrong):
    """Two x-amz-checksum-* headers, one right and one wrong (a SHA-256 that is not the body's
    beside its right SHA-1, and the other way round; the spec's PutObject supports both): the
    wrong one is a checksum that does not match the body, so the PUT is refused with 400 (AWS
    answers InvalidRequest to a second algorithm, a mismatch is BadDigest; either code) and
    nothing is stored. An implementer who reads only the first (or the last) checksum header
    it finds stores the body."""
    key = names.key()
    values = {"sha256": WRONG, "sha1": _b64(hashlib.sha1(b"other").digest())}
    headers = {
        s3.wire.vendor(f"checksum-{right}"): CHECKSUMS[right],
        s3.wire.vendor(f"checksum-{wrong}"): values[wrong],
    }
    reply = s3.wire.put_object(bucket, key, BODY, headers=headers)
    assert reply.status == 400, f"right {right}, wrong {wrong}: {reply.describe()}; expected 400"
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.put-object.checksum-mismatch")
@pytest.mark.parametrize("algorithm", ["sha256", "sha1"])
def test_a_checksum_that_is_not_base64_is_refused(s3, bucket, names, algorithm):
    """A checksum header whose value is not base64 at all cannot name the body's digest: the
    PUT is refused with 400 (AWS answers InvalidRequest, a mismatch BadDigest; either code),
    never a 5xx, and nothing is stored. An implementer may decode the value without handling
    the decoder's error."""
    key = names.key()
    header = s3.wire.vendor(f"checksum-{algorithm}")
    reply = s3.wire.put_object(bucket, key, BODY, headers={header: "not base64!"})
    assert reply.status == 400, f"{header}: 'not base64!': {reply.describe()}; expected 400"
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.put-object.checksum-mismatch")
def test_checksum_header_of_an_aws_chunked_upload_is_verified(s3, bucket, names):
    """A signed aws-chunked upload (STREAMING-AWS4-HMAC-SHA256-PAYLOAD, no trailer) whose
    checksum comes as an `x-amz-checksum-sha256` header, as PutObject documents it: the right
    value is kept and returned on HEAD, a wrong one is 400 BadDigest and nothing is stored.
    An implementer may look for checksums of a streamed body only in its trailer."""
    header = s3.wire.vendor("checksum-sha256")
    chunks = [b"c" * 8192, b"checksum in a header"]
    right = {header: chunked.checksum("sha256", b"".join(chunks))}
    key = names.key()
    chunked.put_chunked(s3.wire, bucket, key, chunks, extra_headers=right).assert_ok()
    mode = {s3.wire.vendor("checksum-mode"): "ENABLED"}
    head = s3.wire.request("HEAD", bucket, key, headers=mode).assert_ok()
    assert head.header(header) == right[header], f"HEAD {header}: {head.header(header)!r}"
    other = names.key()
    wrong = {header: WRONG}
    reply = chunked.put_chunked(s3.wire, bucket, other, chunks, extra_headers=wrong)
    reply.assert_error(400, "BadDigest")
    s3.wire.get_object(bucket, other).assert_error(404, "NoSuchKey")


def _drop_checksum_trailer(body: bytes) -> bytes:
    """The body without its x-amz-checksum-* trailer line (the 0-length chunk ends it)."""
    start = body.index(b"\r\nx-amz-checksum-") + 2
    return body[:start] + body[body.index(b"\r\n", start) + 2 :]


@pytest.mark.rule("storage.put-object.checksum-mismatch")
def test_announced_trailer_checksum_never_sent_is_refused(s3, bucket, names):
    """x-amz-trailer announces a checksum (AWS's trailer page: the client must set it to what
    the trailing header includes) and the unsigned body ends without it: the checksum the
    client asked for cannot be verified, so a 4xx (never a 5xx) and nothing stored. An
    implementer may store the body unchecked, or fail on the missing value."""
    key = names.key()
    chunks = [b"m" * 8192, b"trailer never sent"]
    trailers = {"x-amz-checksum-crc32": chunked.checksum("crc32", b"".join(chunks))}
    reply = chunked.put_chunked(
        s3.wire, bucket, key, chunks, chunked.UNSIGNED_TRAILER, trailers,
        tamper=_drop_checksum_trailer,
    )  # fmt: skip
    assert 400 <= reply.status < 500, f"announced trailer not sent: {reply.describe()}"
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")
