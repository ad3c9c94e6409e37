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
    # every metadata entry came back as a header: none is counted missing (S3's
    # x-amz-missing-meta counts entries a GET could not return; absent, or 0, when none)
    headers = got["ResponseMetadata"]["HTTPHeaders"]
    missing = headers.get(s3.wire.vendor("missing-meta").lower())
    assert missing in (None, "0"), f"x-amz-missing-meta {missing!r} for metadata all returned"


# Keys an implementation may be tempted to normalise: runs of `/`, a folder marker, spaces at
# the ends, percent signs that look encoded, non-ASCII. S3 keys are opaque byte strings.
ODD_KEY_SUFFIXES = {
    "double-slash": "/a//b",
    "triple-slash": "/a///b",
    "folder-marker": "/a/",
    "leading-space": "/ lead",
    "trailing-space": "/trail ",
    "percent-encoded-look": "/%2F%41",
    "non-ascii": "/ünï/çødé",
}


@pytest.mark.rule("storage.put-object.round-trip")
@pytest.mark.parametrize("suffix", ODD_KEY_SUFFIXES.values(), ids=ODD_KEY_SUFFIXES.keys())
def test_odd_key_reads_back_and_lists_as_written(s3, bucket, names, suffix):
    """The object is read back under the exact key it was written with, and a listing names
    that key, not a normalised form of it (the stateful model found a store that lists
    `a//b` as `a/b`)."""
    key = names.key(suffix)
    body = os.urandom(64)
    s3.boto.put_object(Bucket=bucket, Key=key, Body=body)
    assert s3.boto.get_object(Bucket=bucket, Key=key)["Body"].read() == body
    stem = key[: len(key) - len(suffix)]
    listed = s3.boto.list_objects_v2(Bucket=bucket, Prefix=stem)
    keys = [item["Key"] for item in listed.get("Contents", [])]
    assert keys == [key], f"listed under {stem!r}: {keys!r}, written: {key!r}"
