"""Get/Put/DeleteBucketEncryption: AES256 is the only algorithm accepted."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"


def _config(algorithm: str, key_id: str | None = None, after_aes256: bool = False) -> bytes:
    """A configuration whose Rule names `algorithm`; `after_aes256`: as a second Rule, after
    one naming AES256 (a check of the first Rule alone lets it through)."""
    key = f"<KMSMasterKeyID>{key_id}</KMSMasterKeyID>" if key_id else ""
    rule = "<Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>{}</SSEAlgorithm>{}"
    rule += "</ApplyServerSideEncryptionByDefault></Rule>"
    rules = rule.format(algorithm, key)
    if after_aes256:
        rules = rule.format("AES256", "") + rules
    return (
        f'<ServerSideEncryptionConfiguration xmlns="{XMLNS}">{rules}'
        "</ServerSideEncryptionConfiguration>"
    ).encode()


def _put(s3: Any, bucket: str, body: bytes) -> Any:
    import base64
    import hashlib

    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    return s3.wire.request(
        "PUT", bucket, query=[("encryption", None)], body=body, headers={"Content-MD5": md5}
    )


def _algorithms(s3: Any, bucket: str) -> tuple[Any, list[str | None]]:
    reply = s3.wire.request("GET", bucket, query=[("encryption", None)])
    if reply.status == 404:
        return reply, []
    root = reply.assert_ok().xml
    assert root is not None and root.tag == "ServerSideEncryptionConfiguration", reply.body[:300]
    return reply, [node.text for node in root.iter("SSEAlgorithm")]


@pytest.mark.rule("storage.bucket-encryption.aes256")
def test_aes256_round_trip(s3, bucket):
    """PutBucketEncryption with AES256 is accepted and GetBucketEncryption returns AES256."""
    try:
        s3.boto.put_bucket_encryption(
            Bucket=bucket,
            ServerSideEncryptionConfiguration={
                "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
            },
        )
        got = s3.boto.get_bucket_encryption(Bucket=bucket)
    except ClientError as exc:  # the target's refusal is the rule failing, not the suite
        pytest.fail(f"AES256 bucket encryption refused: {exc}")
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 200
    rules = got["ServerSideEncryptionConfiguration"]["Rules"]
    assert [r["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] for r in rules] == ["AES256"]


@pytest.mark.rule("storage.bucket-encryption.other-refused")
@pytest.mark.parametrize(
    ("algorithm", "key_id"),
    [("aws:kms", "arn:aws:kms:auto:000000000000:key/conformance"), ("aws:kms:dsse", None)],
    ids=["kms", "dsse"],
)
@pytest.mark.parametrize("second", [False, True], ids=["only-rule", "second-rule"])
def test_other_algorithm_refused(s3, bucket, algorithm, key_id, second):
    """An algorithm other than AES256 is refused (4xx or NotImplemented) and not stored,
    alone or in a second Rule after an AES256 one."""
    reply = _put(s3, bucket, _config(algorithm, key_id, after_aes256=second))
    assert reply.status in (400, 501), f"{algorithm}: status {reply.status}, expected a refusal"
    assert reply.error_code, f"{algorithm}: refusal without an S3 error code"
    _, algorithms = _algorithms(s3, bucket)
    assert algorithm not in algorithms, f"{algorithm} stored anyway: {algorithms}"


@pytest.mark.rule("storage.bucket-encryption.delete")
def test_delete_encryption_accepted(s3, bucket):
    """DeleteBucketEncryption is accepted after an AES256 configuration was set."""
    _put(s3, bucket, _config("AES256")).assert_ok()
    reply = s3.wire.request("DELETE", bucket, query=[("encryption", None)])
    assert reply.status in (200, 204), f"status {reply.status} {reply.error_code}"
    after, algorithms = _algorithms(s3, bucket)
    assert after.status in (200, 404), f"GetBucketEncryption after delete: {after.status}"
    assert set(algorithms) <= {"AES256"}, algorithms


# a missing bucket is the no-such-bucket rule's case, not the AES256 round trip's
@pytest.mark.rule("storage.errors.no-such-bucket")
def test_missing_bucket_is_no_such_bucket(s3, names):
    """ListObjectsV2 on a missing bucket answers 404 NoSuchBucket (an operation served at
    every date: GetBucketEncryption exists only from 2022-05-05)."""
    with pytest.raises(ClientError) as caught:
        s3.boto.list_objects_v2(Bucket=names.bucket())
    error = caught.value.response
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 404
    assert error["Error"]["Code"] == "NoSuchBucket"
