"""Copy-source conditions are weighed in the order RFC 9110 13.2.2 gives, as S3's CopyObject
page states for these headers: a matching x-amz-copy-source-if-match copies even when
x-amz-copy-source-if-unmodified-since fails, and a x-amz-copy-source-if-none-match that does
not match copies even when x-amz-copy-source-if-modified-since fails. The reference weighed
every header on its own, so both pairs answered 412 (found by a hand-made slip round).
"""

from __future__ import annotations

from typing import Any

import botocore.exceptions
import pytest

PAST = "Mon, 01 Jan 2001 00:00:00 GMT"  # the object was modified after it
FUTURE = "Fri, 01 Jan 2100 00:00:00 GMT"  # the object was not modified after it


def _copy(s3: Any, bucket: str, **conditions: str) -> str:
    try:
        s3.copy_object(
            Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "source"},
            **conditions,
        )  # fmt: skip
    except botocore.exceptions.ClientError as exc:
        return str(exc.response["Error"]["Code"])
    return "copied"


@pytest.fixture
def etag(s3: Any, bucket: str) -> str:
    return str(s3.put_object(Bucket=bucket, Key="source", Body=b"source")["ETag"])


def test_a_matching_if_match_overrides_a_failing_if_unmodified_since(
    s3: Any, bucket: str, etag: str
) -> None:
    assert _copy(s3, bucket, CopySourceIfMatch=etag, CopySourceIfUnmodifiedSince=PAST) == "copied"
    assert _copy(s3, bucket, CopySourceIfUnmodifiedSince=PAST) == "PreconditionFailed"


def test_an_unmatched_if_none_match_overrides_a_failing_if_modified_since(
    s3: Any, bucket: str, etag: str
) -> None:
    other = '"0123456789abcdef0123456789abcdef"'
    assert (
        _copy(s3, bucket, CopySourceIfNoneMatch=other, CopySourceIfModifiedSince=FUTURE) == "copied"
    )
    assert _copy(s3, bucket, CopySourceIfModifiedSince=FUTURE) == "PreconditionFailed"
    assert _copy(s3, bucket, CopySourceIfNoneMatch=etag) == "PreconditionFailed"
    assert _copy(s3, bucket, CopySourceIfMatch='"nope"') == "PreconditionFailed"
