"""UploadPart checksum headers and the MD5 of GET/HEAD (two reference defects, hand slips).

1. UploadPart checked a checksum only when an aws-chunked trailer carried it: a wrong
   `x-amz-checksum-<alg>` header was stored with 200. S3 checks it as PutObject does (400
   BadDigest, the part not kept) and echoes an accepted one in the answer.
2. GET/HEAD over S3 sent `Content-MD5`, for a multipart object too (the MD5 of the joined bytes).
   S3's GetObject / HeadObject answers carry no such header, and the spec keeps an MD5 for objects
   not uploaded by multipart only (a binding's `checksums.md5`): the reference sends none.
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from typing import Any

import pytest

from conformance.clients.s3 import WireClient

MIB = 1024 * 1024
PART = b"part bytes under a checksum header"


def _b64(digest: bytes) -> str:
    return base64.b64encode(digest).decode()


# right value per algorithm for PART (crc32c has no stdlib helper: the reference's own is not
# used here, a wrong value suffices for it)
RIGHT = {
    "sha256": _b64(hashlib.sha256(PART).digest()),
    "sha1": _b64(hashlib.sha1(PART).digest()),
    "crc32": _b64(zlib.crc32(PART).to_bytes(4, "big")),
}
WRONG = {
    "sha256": _b64(hashlib.sha256(b"other").digest()),
    "sha1": _b64(hashlib.sha1(b"other").digest()),
    "crc32": _b64(zlib.crc32(b"other").to_bytes(4, "big")),
    "crc32c": _b64(b"\0\0\0\1"),
}


def _upload(wire: WireClient, bucket: str, key: str) -> str:
    reply = wire.request("POST", bucket, key, query=[("uploads", None)]).assert_ok()
    root = reply.xml
    assert root is not None
    found = [el.text for el in root.iter() if el.tag.endswith("UploadId")]
    assert found and found[0]
    return found[0]


def _part(
    wire: WireClient, bucket: str, key: str, upload: str, number: int, body: bytes, **headers: str
) -> Any:
    query = [("partNumber", str(number)), ("uploadId", upload)]
    return wire.request("PUT", bucket, key, query=query, body=body, headers=headers)


def _parts(wire: WireClient, bucket: str, key: str, upload: str) -> list[str]:
    reply = wire.request("GET", bucket, key, query=[("uploadId", upload)]).assert_ok()
    root = reply.xml
    assert root is not None
    return [el.text or "" for el in root.iter() if el.tag.endswith("PartNumber")]


@pytest.mark.parametrize("algorithm", sorted(WRONG))
def test_upload_part_wrong_checksum_header_is_bad_digest(
    wire: WireClient, bucket: str, algorithm: str
) -> None:
    """A part whose x-amz-checksum-<alg> is another body's: 400 BadDigest, no part kept."""
    upload = _upload(wire, bucket, "k")
    header = {f"x-amz-checksum-{algorithm}": WRONG[algorithm]}
    reply = _part(wire, bucket, "k", upload, 1, PART, **header)
    reply.assert_error(400, "BadDigest")
    assert _parts(wire, bucket, "k", upload) == []


@pytest.mark.parametrize("algorithm", sorted(RIGHT))
def test_upload_part_right_checksum_is_kept_and_echoed(
    wire: WireClient, bucket: str, algorithm: str
) -> None:
    """A matching checksum header is accepted and returned in the answer, as PutObject's."""
    upload = _upload(wire, bucket, "k")
    name = f"x-amz-checksum-{algorithm}"
    reply = _part(wire, bucket, "k", upload, 1, PART, **{name: RIGHT[algorithm]}).assert_ok()
    assert reply.header(name) == RIGHT[algorithm]
    assert _parts(wire, bucket, "k", upload) == ["1"]


def test_put_object_checksum_echoed(wire: WireClient, bucket: str) -> None:
    """PutObject already echoed its checksum: the same answer UploadPart now gives."""
    name = "x-amz-checksum-sha256"
    reply = wire.put_object(bucket, "one", PART, headers={name: RIGHT["sha256"]}).assert_ok()
    assert reply.header(name) == RIGHT["sha256"]


def test_no_content_md5_on_get_or_head(wire: WireClient, bucket: str) -> None:
    """Neither a single-PUT nor a multipart object answers GET/HEAD with Content-MD5."""
    wire.put_object(bucket, "single", PART).assert_ok()
    upload = _upload(wire, bucket, "multi")
    first, second = b"a" * 5 * MIB, b"tail"
    etags = [
        _part(wire, bucket, "multi", upload, n, body).assert_ok().header("ETag")
        for n, body in ((1, first), (2, second))
    ]
    listed = "".join(
        f"<Part><PartNumber>{n}</PartNumber><ETag>{etag}</ETag></Part>"
        for n, etag in enumerate(etags, 1)
    )
    wire.request(
        "POST", bucket, "multi", query=[("uploadId", upload)],
        body=f"<CompleteMultipartUpload>{listed}</CompleteMultipartUpload>".encode(),
    ).assert_ok()  # fmt: skip
    sent = {
        (method, key): wire.request(method, bucket, key).assert_ok().header("Content-MD5")
        for key in ("single", "multi")
        for method in ("GET", "HEAD")
    }
    assert {k: v for k, v in sent.items() if v is not None} == {}
