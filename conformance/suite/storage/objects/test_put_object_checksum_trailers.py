"""A checksum of every algorithm sent as an aws-chunked trailer: accepted and read back.

A checksum can arrive in a header or, announced by x-amz-trailer, after an aws-chunked body
(signed or unsigned trailer: what SDKs send by default). An implementer may handle the trailer
form for one algorithm only, or check a trailer value's length against the wrong digest size;
each algorithm the header form supports is sent here in both trailer modes.
"""

from __future__ import annotations

import pytest

from conformance.clients import s3_chunked as chunked

CHUNKS = [b"t" * 8192, b"checksum after the body"]
RULES = {
    "sha256": "storage.put-object.checksum-sha256",
    "sha1": "storage.put-object.checksum-sha1",
    "crc32": "storage.put-object.checksum-crc32",
    "crc32c": "storage.put-object.checksum-crc32",
}
MODES = {"signed-trailer": chunked.SIGNED_TRAILER, "unsigned-trailer": chunked.UNSIGNED_TRAILER}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize(
    "algorithm", [pytest.param(a, marks=pytest.mark.rule(r)) for a, r in RULES.items()]
)
def test_trailing_checksum_accepted_and_returned(s3, bucket, names, algorithm, mode):
    """The matching trailer checksum is accepted, the body stored, the value returned on HEAD."""
    key = names.key()
    name = s3.wire.vendor(f"checksum-{algorithm}")
    value = chunked.checksum(algorithm, b"".join(CHUNKS))
    reply = chunked.put_chunked(s3.wire, bucket, key, CHUNKS, MODES[mode], trailers={name: value})
    reply.assert_ok()
    enabled = {s3.wire.vendor("checksum-mode"): "ENABLED"}
    got = s3.wire.get_object(bucket, key).assert_ok()
    assert got.body == b"".join(CHUNKS), f"{mode} {algorithm}: stored body differs"
    head = s3.wire.request("HEAD", bucket, key, headers=enabled).assert_ok()
    assert head.header(name) == value, f"HEAD {name}: {head.header(name)!r}, sent {value!r}"


@pytest.mark.rule("storage.put-object.checksum-crc32")
@pytest.mark.parametrize("mode", sorted(MODES))
def test_trailer_with_the_sdk_algorithm_header(s3, bucket, names, mode):
    """What the SDKs send by default: the trailing checksum announced by x-amz-trailer, and
    `x-amz-sdk-checksum-algorithm: CRC32` naming its algorithm (S3's PutObject documents the
    header). The trailer is the checksum the header names: accepted, stored and returned."""
    key = names.key()
    name = s3.wire.vendor("checksum-crc32")
    value = chunked.checksum("crc32", b"".join(CHUNKS))
    announce = {s3.wire.vendor("sdk-checksum-algorithm"): "CRC32"}
    reply = chunked.put_chunked(
        s3.wire, bucket, key, CHUNKS, MODES[mode], trailers={name: value}, extra_headers=announce
    )
    assert reply.status == 200, f"{mode} with the algorithm named: {reply.describe()}"
    enabled = {s3.wire.vendor("checksum-mode"): "ENABLED"}
    head = s3.wire.request("HEAD", bucket, key, headers=enabled).assert_ok()
    assert head.header(name) == value, f"HEAD {name}: {head.header(name)!r}, sent {value!r}"


@pytest.mark.rule("storage.put-object.checksum-crc32")
def test_trailer_names_in_another_case_are_the_same_fields(s3, bucket, names):
    """`X-Amz-Checksum-Crc32` announced and sent as a trailer: field names are case-insensitive
    (RFC 9110 section 5.1), so the checksum is checked and returned as for the lowercase form."""
    key = names.key()
    value = chunked.checksum("crc32", b"".join(CHUNKS))
    trailers = {"X-Amz-Checksum-Crc32": value}
    reply = chunked.put_chunked(s3.wire, bucket, key, CHUNKS, chunked.UNSIGNED_TRAILER, trailers)
    reply.assert_ok()
    enabled = {s3.wire.vendor("checksum-mode"): "ENABLED"}
    head = s3.wire.request("HEAD", bucket, key, headers=enabled).assert_ok()
    name = s3.wire.vendor("checksum-crc32")
    assert head.header(name) == value, f"HEAD {name}: {head.header(name)!r}, sent {value!r}"
    wrong = {"X-Amz-Checksum-Crc32": chunked.checksum("crc32", b"other bytes")}
    bad = chunked.put_chunked(s3.wire, bucket, names.key(), CHUNKS, chunked.UNSIGNED_TRAILER, wrong)
    assert 400 <= bad.status < 500, f"a wrong trailer in another case: {bad.describe()}"
