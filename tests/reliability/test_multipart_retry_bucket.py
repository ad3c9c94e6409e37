"""A completion retry never outlives its bucket (issue 26, fresh adversarial pass).

The reference remembers completed multipart uploads for an hour so that a retried
CompleteMultipartUpload gets its success again (`s3/multipart_done.py`). On main that memory
was keyed by account, bucket name and key only: after DeleteBucket and CreateBucket of the same
name, a retry of the old completion still answered 200, for an object the new bucket never had.
The memory now also holds the bucket's generation: another bucket of that name is NoSuchUpload.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from reliability.refproc import RefProcess

BUCKET = "mpu-retry-recreated"
KEY = "object"


def _completed_upload(s3: Any) -> tuple[str, dict[str, Any]]:
    upload = s3.create_multipart_upload(Bucket=BUCKET, Key=KEY)["UploadId"]
    part = s3.upload_part(Bucket=BUCKET, Key=KEY, UploadId=upload, PartNumber=1, Body=b"p" * 100)
    parts = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
    s3.complete_multipart_upload(Bucket=BUCKET, Key=KEY, UploadId=upload, MultipartUpload=parts)
    return upload, parts


def _retry(s3: Any, upload: str, parts: dict[str, Any]) -> Any:
    return s3.complete_multipart_upload(
        Bucket=BUCKET, Key=KEY, UploadId=upload, MultipartUpload=parts
    )


def test_retry_after_the_bucket_was_recreated_is_no_such_upload(ref: RefProcess) -> None:
    s3 = ref.boto()
    s3.create_bucket(Bucket=BUCKET)
    upload, parts = _completed_upload(s3)
    assert _retry(s3, upload, parts)["ResponseMetadata"]["HTTPStatusCode"] == 200  # remembered
    s3.delete_object(Bucket=BUCKET, Key=KEY)
    s3.delete_bucket(Bucket=BUCKET)
    s3.create_bucket(Bucket=BUCKET)
    with pytest.raises(ClientError) as refused:
        _retry(s3, upload, parts)
    assert refused.value.response["Error"]["Code"] == "NoSuchUpload"
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    assert s3.list_objects_v2(Bucket=BUCKET).get("KeyCount") == 0


def test_retry_in_the_same_bucket_still_answers(ref: RefProcess) -> None:
    """The guard is the bucket's generation, not a forgetting: the same bucket keeps it."""
    s3 = ref.boto()
    s3.create_bucket(Bucket=f"{BUCKET}-kept")
    upload = s3.create_multipart_upload(Bucket=f"{BUCKET}-kept", Key=KEY)["UploadId"]
    part = s3.upload_part(
        Bucket=f"{BUCKET}-kept", Key=KEY, UploadId=upload, PartNumber=1, Body=b"q" * 10
    )
    parts = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
    first = s3.complete_multipart_upload(
        Bucket=f"{BUCKET}-kept", Key=KEY, UploadId=upload, MultipartUpload=parts
    )
    again = s3.complete_multipart_upload(
        Bucket=f"{BUCKET}-kept", Key=KEY, UploadId=upload, MultipartUpload=parts
    )
    assert again["ETag"] == first["ETag"]
