"""Content-MD5 and x-amz-copy-source-range sent as two lines are the one value SigV4 signed
(hostile round 13, the class of test_s3_repeated_header_lines.py).

Content-MD5 was read from its first line alone: `Content-MD5: <right>` then `Content-MD5:
<wrong>` stored a PutObject or UploadPart body with 200, the wrong digest unread, where the
signed value `<right>,<wrong>` is no MD5 (InvalidDigest, as on one line). UploadPartCopy's
x-amz-copy-source-range likewise: `bytes=0-4` then `bytes=5-9` copied bytes 0-4 where the
signed `bytes=0-4,bytes=5-9` is no range S3 takes (InvalidArgument, as on one line).
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from reference.test_s3_repeated_header_lines import _send_split, _upload
from reliability.rawhttp import statuses

from conformance.clients.s3 import WireClient

BODY = b"one body, one digest, claimed twice"
RIGHT = base64.b64encode(hashlib.md5(BODY).digest()).decode()
WRONG = base64.b64encode(hashlib.md5(b"other bytes").digest()).decode()


def _parts(wire: WireClient, bucket: str, key: str, upload: str) -> bytes:
    return wire.request("GET", bucket, key, query=[("uploadId", upload)]).assert_ok().body


@pytest.mark.parametrize(
    "values", [[RIGHT, WRONG], [WRONG, RIGHT]], ids=["wrong-last", "wrong-first"]
)
@pytest.mark.parametrize("part", [False, True], ids=["put-object", "upload-part"])
def test_two_content_md5_lines_are_refused(
    wire: WireClient, bucket: str, part: bool, values: list[str]
) -> None:
    upload = _upload(wire, bucket, "k") if part else ""
    query = [("partNumber", "1"), ("uploadId", upload)] if part else []
    headers = {"Content-MD5": ",".join(values)}
    prepared = wire.prepare("PUT", bucket, "k", query=query, headers=headers, body=BODY)
    raw = _send_split(prepared, "content-md5")
    assert statuses(raw) == [400], raw[:400]
    # s3/repeated_headers.py refuses two different lines first (InvalidArgument); the digest
    # check behind it reads the joined value (InvalidDigest / BadDigest) if it is bypassed
    codes = (
        b"<Code>InvalidArgument</Code>",
        b"<Code>InvalidDigest</Code>",
        b"<Code>BadDigest</Code>",
    )
    assert any(code in raw for code in codes), raw[:400]
    if part:
        assert b"<PartNumber>" not in _parts(wire, bucket, "k", upload)
    else:
        wire.get_object(bucket, "k").assert_error(404, "NoSuchKey")


def test_one_content_md5_line_is_still_checked(wire: WireClient, bucket: str) -> None:
    prepared = wire.prepare("PUT", bucket, "k", headers={"Content-MD5": RIGHT}, body=BODY)
    assert statuses(_send_split(prepared, "content-md5")) == [200]
    assert wire.get_object(bucket, "k").assert_ok().body == BODY


def test_two_copy_source_range_lines_are_refused(wire: WireClient, bucket: str) -> None:
    wire.put_object(bucket, "src", BODY).assert_ok()
    upload = _upload(wire, bucket, "dst")
    query = [("partNumber", "1"), ("uploadId", upload)]
    name = "x-amz-copy-source-range"
    headers = {"x-amz-copy-source": f"/{bucket}/src", name: "bytes=0-4,bytes=5-9"}
    raw = _send_split(wire.prepare("PUT", bucket, "dst", query=query, headers=headers), name)
    assert statuses(raw) == [400] and b"<Code>InvalidArgument</Code>" in raw, raw[:400]
    assert b"<PartNumber>" not in _parts(wire, bucket, "dst", upload)
    one = {"x-amz-copy-source": f"/{bucket}/src", name: "bytes=0-4"}
    assert statuses(
        _send_split(wire.prepare("PUT", bucket, "dst", query=query, headers=one), name)
    ) == [200]
