"""boto3 with its DEFAULT configuration against the reference's TLS listener.

Over HTTPS, current botocore computes a CRC32 for every upload and sends it as an aws-chunked
trailer (`STREAMING-UNSIGNED-PAYLOAD-TRAILER`), and validates checksums on download: exactly
what application code meets against a real service. Only the endpoint, credentials, region and
the certificate are given; nothing else is configured.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.clients.conftest import fresh_name

MIB = 1024 * 1024


class _Sent:
    """Headers of every request boto3 sent, by operation name."""

    def __init__(self) -> None:
        self.headers: dict[str, list[dict[str, str]]] = {}

    def __call__(self, request: Any, event_name: str, **_: Any) -> None:
        operation = event_name.rsplit(".", 1)[-1]
        headers = {
            k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()
        }
        self.headers.setdefault(operation, []).append(headers)


@pytest.fixture
def sent() -> _Sent:
    return _Sent()


@pytest.fixture
def client(tls_surface: dict[str, Any], clean_env: dict[str, str], sent: _Sent) -> Any:
    """boto3's default client: no Config at all; the certificate passed explicitly."""
    session = boto3.session.Session()
    s3 = session.client(
        "s3",
        endpoint_url=tls_surface["endpoint"],
        region_name=tls_surface["region"],
        aws_access_key_id=tls_surface["access_key_id"],
        aws_secret_access_key=tls_surface["secret_access_key"],
        verify=tls_surface["verify"],
    )
    s3.meta.events.register("before-send.s3", sent)
    return s3


@pytest.fixture
def bucket(client: Any) -> Any:
    name = fresh_name("boto3")
    client.create_bucket(Bucket=name)
    yield name
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=name):
        for item in page.get("Contents", []):
            client.delete_object(Bucket=name, Key=item["Key"])
    client.delete_bucket(Bucket=name)


def test_defaults_are_in_force(client: Any) -> None:
    """The client under test really has botocore's default checksum settings."""
    assert client.meta.config.request_checksum_calculation == "when_supported"
    assert client.meta.config.response_checksum_validation == "when_supported"


def test_round_trip(client: Any, bucket: str, sent: _Sent) -> None:
    """put, head, get (checksum validated), list and delete work with the defaults."""
    body = os.urandom(100_000)
    put = client.put_object(Bucket=bucket, Key="dir/obj.bin", Body=body, ContentType="x/y")
    assert put["ChecksumCRC32"]
    headers = sent.headers["PutObject"][-1]
    assert headers["x-amz-content-sha256"] == "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    assert headers["x-amz-trailer"] == "x-amz-checksum-crc32"
    head = client.head_object(Bucket=bucket, Key="dir/obj.bin")
    assert head["ContentLength"] == len(body)
    assert head["ContentType"] == "x/y"
    got = client.get_object(Bucket=bucket, Key="dir/obj.bin")
    assert got["Body"].read() == body
    assert got.get("ChecksumCRC32") == put["ChecksumCRC32"]  # validated by botocore too
    listed = client.list_objects_v2(Bucket=bucket, Prefix="dir/")
    assert [item["Key"] for item in listed["Contents"]] == ["dir/obj.bin"]
    client.delete_object(Bucket=bucket, Key="dir/obj.bin")
    with pytest.raises(ClientError) as caught:
        client.head_object(Bucket=bucket, Key="dir/obj.bin")
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_empty_object(client: Any, bucket: str) -> None:
    """A zero-byte upload (a trailer after no data) stores an empty object."""
    client.put_object(Bucket=bucket, Key="empty", Body=b"")
    assert client.get_object(Bucket=bucket, Key="empty")["Body"].read() == b""


@pytest.mark.parametrize("algorithm", ["CRC32", "CRC32C", "SHA1", "SHA256"])
def test_requested_checksum_algorithms(client: Any, bucket: str, algorithm: str) -> None:
    """Each flexible checksum algorithm goes up as a trailer and comes back on GET."""
    if algorithm == "CRC32C" and importlib.util.find_spec("awscrt") is None:
        pytest.skip("botocore computes CRC32C only with awscrt (pip install awscrt)")
    body = b"checksummed " * 5000
    put = client.put_object(Bucket=bucket, Key="c", Body=body, ChecksumAlgorithm=algorithm)
    field = f"Checksum{algorithm}"
    assert put[field]
    got = client.get_object(Bucket=bucket, Key="c", ChecksumMode="ENABLED")
    assert got["Body"].read() == body
    assert got[field] == put[field]


def _multipart_offered(client: Any, bucket: str) -> bool:
    try:
        upload = client.create_multipart_upload(Bucket=bucket, Key="probe")
    except ClientError as exc:
        if exc.response["ResponseMetadata"]["HTTPStatusCode"] == 501:
            return False
        raise
    client.abort_multipart_upload(Bucket=bucket, Key="probe", UploadId=upload["UploadId"])
    return True


def test_upload_file_multipart_and_download_file(
    client: Any, bucket: str, tmp_path: Path, sent: _Sent
) -> None:
    """upload_file splits a 20 MiB file into parts (each with a trailer); download_file reads it."""
    if not _multipart_offered(client, bucket):
        pytest.skip("the reference answers 501 to CreateMultipartUpload: multipart not built yet")
    source = tmp_path / "big.bin"
    source.write_bytes(os.urandom(20 * MIB))
    client.upload_file(str(source), bucket, "big.bin")
    assert len(sent.headers.get("UploadPart", [])) >= 2
    head = client.head_object(Bucket=bucket, Key="big.bin")
    assert head["ContentLength"] == 20 * MIB
    assert head["ETag"].strip('"').endswith(f"-{len(sent.headers['UploadPart'])}")
    target = tmp_path / "back.bin"
    client.download_file(bucket, "big.bin", str(target))
    assert target.read_bytes() == source.read_bytes()


def test_upload_file_single_part(client: Any, bucket: str, tmp_path: Path) -> None:
    """upload_file of a small file is one PutObject; download_file returns the same bytes."""
    source = tmp_path / "small.txt"
    source.write_text("small file\n" * 100)
    client.upload_file(str(source), bucket, "small.txt")
    target = tmp_path / "small-back.txt"
    client.download_file(bucket, "small.txt", str(target))
    assert target.read_bytes() == source.read_bytes()
