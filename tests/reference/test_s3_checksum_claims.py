"""Checksum headers that cannot be one claim: 400 InvalidRequest, nothing stored (hostile round 11).

1. Two `x-amz-checksum-*` headers on one PutObject / UploadPart were each verified (both right:
   200, both kept). S3 takes one checksum per request and refuses more: 400 InvalidRequest
   "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed."; the
   aws-chunked decoder of the reference already answered that for a streamed body.
2. A well-formed base64 value of the wrong size for its algorithm (a CRC32's 4 bytes in
   `x-amz-checksum-sha256`) was compared with the digest and answered BadDigest. It is not a
   checksum of that algorithm at all: S3 answers 400 InvalidRequest "Value for
   x-amz-checksum-<alg> header is invalid." (as the reference's aws-chunked path did).

Only AWS's observed answers say so (AWS's documentation names no code for either case, and
R2's none), so these are reference tests, not conformance rules.
"""

from __future__ import annotations

import base64
import hashlib
import zlib

import pytest

from conformance.clients.s3 import WireClient, WireReply

BODY = b"one body, one checksum"
SHA256 = base64.b64encode(hashlib.sha256(BODY).digest()).decode()
CRC32 = base64.b64encode(zlib.crc32(BODY).to_bytes(4, "big")).decode()
SHA1 = base64.b64encode(hashlib.sha1(BODY).digest()).decode()


def _upload(wire: WireClient, bucket: str, key: str) -> str:
    reply = wire.request("POST", bucket, key, query=[("uploads", None)]).assert_ok()
    assert reply.xml is not None
    found = [el.text for el in reply.xml.iter() if el.tag.endswith("UploadId")]
    assert found and found[0]
    return found[0]


def _put(wire: WireClient, bucket: str, key: str, part: bool, headers: dict[str, str]) -> WireReply:
    """PutObject, or UploadPart 1 of a new upload; asserts nothing was kept either way."""
    if not part:
        reply = wire.put_object(bucket, key, BODY, headers=headers)
        wire.get_object(bucket, key).assert_error(404, "NoSuchKey")
        return reply
    upload = _upload(wire, bucket, key)
    query = [("partNumber", "1"), ("uploadId", upload)]
    reply = wire.request("PUT", bucket, key, query=query, body=BODY, headers=headers)
    listed = wire.request("GET", bucket, key, query=[("uploadId", upload)]).assert_ok()
    assert b"<PartNumber>" not in listed.body
    return reply


@pytest.mark.parametrize("part", [False, True], ids=["put-object", "upload-part"])
def test_two_checksum_headers_are_invalid_request(
    wire: WireClient, bucket: str, part: bool
) -> None:
    headers = {"x-amz-checksum-sha256": SHA256, "x-amz-checksum-crc32": CRC32}
    reply = _put(wire, bucket, "two", part, headers)
    reply.assert_error(400, "InvalidRequest")
    assert b"Expecting a single x-amz-checksum- header" in reply.body


@pytest.mark.parametrize(
    ("algorithm", "value"),
    [("sha256", CRC32), ("crc32", SHA256), ("sha1", SHA256), ("crc32c", SHA1), ("crc32", "")],
)
@pytest.mark.parametrize("part", [False, True], ids=["put-object", "upload-part"])
def test_a_value_of_the_wrong_size_is_invalid_request(
    wire: WireClient, bucket: str, part: bool, algorithm: str, value: str
) -> None:
    reply = _put(wire, bucket, "size", part, {f"x-amz-checksum-{algorithm}": value})
    reply.assert_error(400, "InvalidRequest")
    message = f"Value for x-amz-checksum-{algorithm} header is invalid."
    assert message.encode() in reply.body


def test_one_right_checksum_is_still_kept(wire: WireClient, bucket: str) -> None:
    wire.put_object(bucket, "one", BODY, headers={"x-amz-checksum-crc32": CRC32}).assert_ok()
    got = wire.get_object(bucket, "one", headers={"x-amz-checksum-mode": "ENABLED"}).assert_ok()
    assert got.header("x-amz-checksum-crc32") == CRC32
