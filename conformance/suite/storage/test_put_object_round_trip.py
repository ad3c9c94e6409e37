"""PutObject then GetObject gives back what was stored."""

from __future__ import annotations

import hashlib
import os

import pytest


@pytest.mark.rule("storage.put-object.round-trip")
@pytest.mark.parametrize("size", [0, 1, 70_000], ids=["empty", "one-byte", "70KB"])
def test_body_type_and_metadata_round_trip(s3, bucket, names, size):
    """An object reads back with its body, Content-Type, metadata and MD5 ETag."""
    key = names.key("/with space+plus=é~")
    body = os.urandom(size)
    s3.boto.put_object(
        Bucket=bucket,
        Key=key,
        Body=body,
        ContentType="text/x-conformance",
        Metadata={"colour": "blue", "n": "1"},
    )
    got = s3.boto.get_object(Bucket=bucket, Key=key)
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert got["Body"].read() == body
    assert got["ContentType"] == "text/x-conformance"
    assert got["Metadata"] == {"colour": "blue", "n": "1"}
    assert got["ETag"] == f'"{hashlib.md5(body).hexdigest()}"'
    assert got["ContentLength"] == size
