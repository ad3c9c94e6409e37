"""S3Client.delete_bucket_recursive against the reference: everything goes, in few round trips."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.reference_process import s3_client_on_reference

from conformance.clients.evidence import collector
from conformance.clients.s3 import S3Client

PREFIX = "ec-cleanup-"


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Client]:
    with s3_client_on_reference(Path(tmp_path_factory.mktemp("ref")) / "data", PREFIX) as client:
        yield client


def _exists(s3: S3Client, name: str) -> bool:
    return name in s3.list_bucket_names()


def test_empty_bucket_takes_two_round_trips(s3: S3Client) -> None:
    name = PREFIX + "empty"
    s3.boto.create_bucket(Bucket=name)
    collector.reset()
    s3.delete_bucket_recursive(name)
    sent = [(e.method, e.status) for e in collector.reset()]
    assert sent == [("GET", 200), ("DELETE", 204)]
    assert not _exists(s3, name)


def test_objects_over_pages_and_uploads_in_progress_all_go(s3: S3Client) -> None:
    name = PREFIX + "full"
    s3.boto.create_bucket(Bucket=name)
    for index in range(130):  # more than one cleanup page
        s3.boto.put_object(Bucket=name, Key=f"k{index:03}", Body=b"x")
    upload: dict[str, Any] = s3.boto.create_multipart_upload(Bucket=name, Key="pending")
    assert upload["UploadId"]
    s3.delete_bucket_recursive(name)
    assert not _exists(s3, name)


def test_refuses_a_bucket_without_the_prefix(s3: S3Client) -> None:
    with pytest.raises(ValueError, match="refusing"):
        s3.delete_bucket_recursive("someone-elses")
