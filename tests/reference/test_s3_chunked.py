"""aws-chunked uploads to the reference: signed chunks, unsigned trailers, ways to break them."""

from __future__ import annotations

import http.client
import urllib.parse
from typing import Any

import pytest

from conformance.clients import s3_chunked as chunked
from conformance.clients.s3_wire import WireClient
from tests.reference.conftest import Reference

BODY = [b"a" * 8192, b"b" * 8192, b"tail"]
DATA = b"".join(BODY)


@pytest.fixture
def wire(reference: Reference) -> WireClient:
    surface = reference.s3
    return WireClient(surface["endpoint"], surface["access_key_id"], surface["secret_access_key"])


def _stored(s3: Any, bucket: str, key: str = "k") -> bytes:
    body: bytes = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    return body


def _exists(s3: Any, bucket: str, key: str = "k") -> bool:
    return bool(s3.list_objects_v2(Bucket=bucket, Prefix=key).get("KeyCount"))


@pytest.mark.parametrize("mode", [chunked.SIGNED, chunked.SIGNED_TRAILER])
def test_signed_chunks_store_the_decoded_body(
    wire: WireClient, s3: Any, bucket: str, mode: str
) -> None:
    """Signed chunks (with or without a signed trailer) store exactly the decoded bytes."""
    trailers = {"x-amz-checksum-crc32": chunked.checksum("crc32", DATA)}
    reply = chunked.put_chunked(
        wire, bucket, "k", BODY, mode, trailers if mode == chunked.SIGNED_TRAILER else None
    )
    reply.assert_ok()
    assert _stored(s3, bucket) == DATA
    head = s3.head_object(Bucket=bucket, Key="k")
    assert head["ContentLength"] == len(DATA)
    assert "ContentEncoding" not in head  # aws-chunked is transport, not stored


@pytest.mark.parametrize("algorithm", ["crc32", "crc32c", "sha1", "sha256"])
def test_unsigned_trailer_checksum_verified_and_returned(
    wire: WireClient, s3: Any, bucket: str, algorithm: str
) -> None:
    """An unsigned-trailer upload's checksum is verified, echoed, and returned in checksum mode."""
    value = chunked.checksum(algorithm, DATA)
    name = f"x-amz-checksum-{algorithm}"
    reply = chunked.put_chunked(wire, bucket, "k", BODY, chunked.UNSIGNED_TRAILER, {name: value})
    reply.assert_ok()
    assert reply.header(name) == value
    got = wire.request("GET", bucket, "k", headers={"x-amz-checksum-mode": "ENABLED"})
    assert got.status == 200 and got.body == DATA
    assert got.header(name) == value


@pytest.mark.parametrize("algorithm", ["crc32", "crc32c", "sha1", "sha256"])
def test_wrong_trailer_checksum_is_bad_digest(
    wire: WireClient, s3: Any, bucket: str, algorithm: str
) -> None:
    """A trailer checksum of other bytes answers 400 BadDigest and stores nothing."""
    value = chunked.checksum(algorithm, b"other bytes")
    name = f"x-amz-checksum-{algorithm}"
    reply = chunked.put_chunked(wire, bucket, "k", BODY, chunked.UNSIGNED_TRAILER, {name: value})
    reply.assert_error(400, "BadDigest")
    assert not _exists(s3, bucket)


def test_tampered_chunk_is_signature_mismatch(wire: WireClient, s3: Any, bucket: str) -> None:
    """A chunk altered after signing answers 403 SignatureDoesNotMatch and stores nothing."""
    reply = chunked.put_chunked(
        wire, bucket, "k", BODY, tamper=lambda body: body.replace(b"bbbb", b"bbbc", 1)
    )
    reply.assert_error(403, "SignatureDoesNotMatch")
    assert not _exists(s3, bucket)


def test_tampered_trailer_is_signature_mismatch(wire: WireClient, bucket: str) -> None:
    """A signed trailer altered after signing answers 403 SignatureDoesNotMatch."""
    good = chunked.checksum("sha256", DATA)
    bad = chunked.checksum("sha256", b"x")
    reply = chunked.put_chunked(
        wire,
        bucket,
        "k",
        BODY,
        chunked.SIGNED_TRAILER,
        {"x-amz-checksum-sha256": good},
        tamper=lambda body: body.replace(good.encode(), bad.encode()),
    )
    reply.assert_error(403, "SignatureDoesNotMatch")


def test_decoded_length_mismatch_is_incomplete_body(wire: WireClient, bucket: str) -> None:
    """x-amz-decoded-content-length other than the decoded size answers 400 IncompleteBody."""
    for declared in (len(DATA) - 1, len(DATA) + 1):
        reply = chunked.put_chunked(wire, bucket, "k", BODY, decoded_length=declared)
        reply.assert_error(400, "IncompleteBody")


def test_missing_decoded_length_is_refused(wire: WireClient, bucket: str) -> None:
    """An aws-chunked upload without x-amz-decoded-content-length answers 411."""
    body = chunked.encode(chunked.UNSIGNED_TRAILER, BODY, {})
    prepared = wire.prepare(
        "PUT", bucket, "k", headers={"Content-Encoding": "aws-chunked"},
        payload_hash=chunked.UNSIGNED_TRAILER,
    )  # fmt: skip
    prepared.body = body
    wire.send(prepared).assert_error(411, "MissingContentLength")


@pytest.mark.parametrize(
    "tamper",
    [
        lambda body: body.replace(b"2000;", b"zz;", 1),  # size not hex
        lambda body: body.replace(b"2000;", b"2001;", 1),  # size longer than the data
        lambda body: body[:-40],  # truncated
        lambda body: body + b"junk",  # data after the final chunk
        lambda body: body.replace(b";chunk-signature=", b";x=", 1),  # no signature
    ],
    ids=["size-not-hex", "size-wrong", "truncated", "trailing-junk", "no-signature"],
)
def test_malformed_framing_is_a_4xx(wire: WireClient, s3: Any, bucket: str, tamper: Any) -> None:
    """Broken aws-chunked framing answers a 4xx S3 error, never a 500, and stores nothing."""
    reply = chunked.put_chunked(wire, bucket, "k", BODY, tamper=tamper)
    assert 400 <= reply.status < 500, reply.status
    assert reply.error_code is not None
    assert not _exists(s3, bucket)


def test_announced_trailer_missing_is_malformed(wire: WireClient, bucket: str) -> None:
    """A trailer announced in x-amz-trailer but absent answers 400 MalformedTrailerError."""
    value = chunked.checksum("crc32", DATA)
    reply = chunked.put_chunked(
        wire,
        bucket,
        "k",
        BODY,
        chunked.UNSIGNED_TRAILER,
        {"x-amz-checksum-crc32": value},
        tamper=lambda body: body.replace(f"x-amz-checksum-crc32:{value}\r\n".encode(), b""),
    )
    reply.assert_error(400, "MalformedTrailerError")


def test_chunked_upload_part(wire: WireClient, s3: Any, bucket: str) -> None:
    """UploadPart takes an aws-chunked body too; the completed object is the decoded bytes."""
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    query = [("partNumber", "1"), ("uploadId", upload)]
    reply = chunked.put_chunked(wire, bucket, "mp", BODY, query=query)
    reply.assert_ok()
    etag = reply.header("ETag")
    s3.complete_multipart_upload(
        Bucket=bucket,
        Key="mp",
        UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]},
    )
    assert _stored(s3, bucket, "mp") == DATA


@pytest.mark.parametrize("content_encoding", ["aws-chunked", "gzip, aws-chunked"])
def test_framing_with_unsigned_payload_is_refused(
    wire: WireClient, s3: Any, bucket: str, content_encoding: str
) -> None:
    """Content-Encoding aws-chunked with x-amz-content-sha256 UNSIGNED-PAYLOAD (not STREAMING-*)
    answers 400 InvalidArgument, as S3 does; the framing is never stored as the object's bytes."""
    body = chunked.encode(chunked.UNSIGNED_TRAILER, BODY, {})
    headers = {
        "Content-Encoding": content_encoding,
        "x-amz-decoded-content-length": str(len(DATA)),
    }
    prepared = wire.prepare("PUT", bucket, "k", headers=headers, payload_hash="UNSIGNED-PAYLOAD")
    prepared.headers["Content-Length"] = str(len(body))
    prepared.body = body
    reply = wire.send(prepared)
    reply.assert_error(400, "InvalidArgument")
    assert not _exists(s3, bucket)


@pytest.mark.parametrize("where", ["size-line", "extension"])
def test_over_long_chunk_header_is_refused(
    wire: WireClient, s3: Any, bucket: str, where: str
) -> None:
    """A chunk header line over the parser's 4096-byte limit answers 400 even when the whole
    line (and its CRLF) arrives in one read: the limit holds however the bytes are split."""
    filler = b" " * 5000 if where == "size-line" else b";" + b"x" * 5000  # BWS, or an extension

    def tamper(body: bytes) -> bytes:
        return body.replace(b"\r\n", filler + b"\r\n", 1)

    reply = chunked.put_chunked(wire, bucket, "k", BODY, chunked.UNSIGNED_TRAILER, tamper=tamper)
    reply.assert_error(400, "InvalidRequest")
    assert b"too long" in reply.body
    assert not _exists(s3, bucket)


def test_chunk_header_at_the_limit_is_accepted(wire: WireClient, s3: Any, bucket: str) -> None:
    """A chunk header of exactly 4096 bytes (an extension the unsigned mode ignores) is read."""
    first = f"{len(BODY[0]):x}".encode()
    line = first + b";" + b"x" * (4096 - len(first) - 1)

    def tamper(body: bytes) -> bytes:
        return body.replace(first + b"\r\n", line + b"\r\n", 1)

    reply = chunked.put_chunked(wire, bucket, "k", BODY, chunked.UNSIGNED_TRAILER, tamper=tamper)
    reply.assert_ok()
    assert _stored(s3, bucket) == DATA


@pytest.mark.parametrize("ending", [b"\r\n", b"\n"], ids=["crlf", "bare-lf"])
def test_chunk_header_one_byte_over_the_limit_is_refused(
    wire: WireClient, s3: Any, bucket: str, ending: bytes
) -> None:
    """4097 bytes (one over the limit, with a CRLF or a bare LF) answer 400: the bound is exact,
    not a few bytes loose (the 5000-byte cases would pass either way)."""
    first = f"{len(BODY[0]):x}".encode()
    line = first + b";" + b"x" * (4097 - len(first) - 1)

    def tamper(body: bytes) -> bytes:
        return body.replace(first + b"\r\n", line + ending, 1)

    reply = chunked.put_chunked(wire, bucket, "k", BODY, chunked.UNSIGNED_TRAILER, tamper=tamper)
    reply.assert_error(400, "InvalidRequest")
    assert b"too long" in reply.body
    assert not _exists(s3, bucket)


def test_framing_on_a_presigned_put_is_refused(wire: WireClient, s3: Any, bucket: str) -> None:
    """A presigned PUT's payload is unsigned (no STREAMING-* hash is signed): aws-chunked on it
    answers 400 InvalidArgument too, rather than storing the framing as the object's bytes."""
    body = chunked.encode(chunked.UNSIGNED_TRAILER, BODY, {})
    headers = {"Content-Encoding": "aws-chunked"}
    prepared = wire.prepare("PUT", bucket, "k", headers=headers, sign="presign")
    prepared.body = body
    reply = wire.send(prepared)
    reply.assert_error(400, "InvalidArgument")
    assert not _exists(s3, bucket)
    plain = wire.prepare("PUT", bucket, "k", sign="presign")  # the same URL, unframed: stored
    plain.body = DATA
    wire.send(plain).assert_ok()
    assert _stored(s3, bucket) == DATA


def test_framing_named_in_a_second_content_encoding_line_is_refused(
    wire: WireClient, s3: Any, bucket: str
) -> None:
    """`Content-Encoding: gzip` and `Content-Encoding: aws-chunked` as two header lines are one
    list (RFC 9110 5.3): under UNSIGNED-PAYLOAD it is refused as the one-line form is, not read
    from its first line only and the framing stored as the object's bytes."""
    body = chunked.encode(chunked.UNSIGNED_TRAILER, BODY, {})
    decoded = {"x-amz-decoded-content-length": str(len(DATA))}  # signed, as x-amz-* must be
    prepared = wire.prepare("PUT", bucket, "k", headers=decoded, payload_hash="UNSIGNED-PAYLOAD")
    url = urllib.parse.urlsplit(prepared.url)
    conn = http.client.HTTPConnection(url.netloc, timeout=30)
    try:
        conn.putrequest("PUT", url.path, skip_accept_encoding=True)  # Host: as signed
        for name, value in prepared.headers.items():
            if name.lower() != "content-length":  # the framed body's own, below
                conn.putheader(name, value)
        conn.putheader("Content-Encoding", "gzip")
        conn.putheader("Content-Encoding", "aws-chunked")
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        status, answer = (reply := conn.getresponse()).status, reply.read()
    finally:
        conn.close()
    assert status == 400 and b"InvalidArgument" in answer, (status, answer[:300])
    assert not _exists(s3, bucket)


@pytest.mark.parametrize(
    "content_encoding", ["aws-chunked", "aws-chunked,gzip", "gzip, aws-chunked"]
)
def test_framing_named_on_a_plain_put_is_stored_as_sent(
    wire: WireClient, s3: Any, bucket: str, content_encoding: str
) -> None:
    """A plain PUT (hex SHA-256 payload hash, body not framed) that names aws-chunked in its
    Content-Encoding stores the bytes sent and the header as sent: only a STREAMING-* body is
    aws-chunked, so only then is the token transport (docs/reference-choices.md, "aws-chunked on a
    plain PUT"). Before, the token was dropped whatever the payload hash."""
    reply = wire.request(
        "PUT", bucket, "k", body=DATA, headers={"Content-Encoding": content_encoding}
    )
    reply.assert_ok()
    head = s3.head_object(Bucket=bucket, Key="k")
    assert head.get("ContentEncoding") == content_encoding
    assert head["ContentLength"] == len(DATA)
    got = s3.get_object(Bucket=bucket, Key="k")  # botocore hands the bytes over undecoded
    assert got["Body"].read() == DATA and got.get("ContentEncoding") == content_encoding


def test_other_codings_of_a_streaming_put_are_kept(wire: WireClient, s3: Any, bucket: str) -> None:
    """A STREAMING-* body announced as `aws-chunked,gzip`: the object's Content-Encoding is gzip."""
    reply = chunked.put_chunked(wire, bucket, "k", BODY, content_encoding="aws-chunked,gzip")
    reply.assert_ok()
    head = s3.head_object(Bucket=bucket, Key="k")
    assert head.get("ContentEncoding") == "gzip" and head["ContentLength"] == len(DATA)
