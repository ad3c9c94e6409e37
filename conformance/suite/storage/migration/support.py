"""Helpers of the migration (sippy) tests: configurations in both shapes, a source bucket."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

import boto3
from botocore.config import Config

SHAPE_CHANGE = dt.date(2024, 2, 6)
DESTINATION = {"provider": "r2", "accessKeyId": "ec-dest-key", "secretAccessKey": "ec-dest-secret"}


def config_for(as_of: dt.date, source: dict[str, Any], bucket: str) -> dict[str, Any]:
    """A configuration naming `bucket` of the source, in the shape in force at `as_of`.

    `endpoint` (a reference extension) is sent only for a source that is not AWS itself.
    """
    endpoint = source.get("endpoint")
    region = str(source.get("region", "us-east-1"))
    if as_of < SHAPE_CHANGE:
        flat = {"bucket": bucket, "region": region, "access_key_id": source["access_key_id"],
                "secret_access_key": source["secret_access_key"]}  # fmt: skip
        return {**flat, "endpoint": endpoint} if endpoint else flat
    aws = {"provider": "aws", "bucket": bucket, "region": region,
           "accessKeyId": source["access_key_id"],
           "secretAccessKey": source["secret_access_key"]}  # fmt: skip
    if endpoint:
        aws["endpoint"] = endpoint
    return {"source": aws, "destination": dict(DESTINATION)}


OFFLINE_SOURCE = {"access_key_id": "ec-src-key", "secret_access_key": "ec-src-secret",
                  "region": "us-east-1", "endpoint": "http://127.0.0.1:9"}  # fmt: skip


def source_client(source: dict[str, Any]) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=source["endpoint"],
        region_name=source.get("region", "us-east-1"),
        aws_access_key_id=source["access_key_id"],
        aws_secret_access_key=source["secret_access_key"],
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )


@contextlib.contextmanager
def source_bucket(source: dict[str, Any], name: str) -> Iterator[Any]:
    """A bucket on the migration source, emptied and removed afterwards."""
    client = source_client(source)
    client.create_bucket(Bucket=name)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            for item in client.list_objects_v2(Bucket=name).get("Contents", []):
                client.delete_object(Bucket=name, Key=item["Key"])
            client.delete_bucket(Bucket=name)
