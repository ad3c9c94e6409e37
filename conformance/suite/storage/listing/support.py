"""Helpers of the listing test modules: fill a bucket, read a ListBucketResult reply."""

from __future__ import annotations

from typing import Any


def fill(s3: Any, bucket: str, keys: list[str]) -> None:
    for key in keys:
        s3.boto.put_object(Bucket=bucket, Key=key, Body=b"")


def keys_of(root: Any) -> list[str]:
    return [node.findtext("Key") for node in root.findall("Contents")]


def prefixes_of(root: Any) -> list[str]:
    return [node.findtext("Prefix") for node in root.findall("CommonPrefixes")]


def listed(reply: Any) -> Any:
    """The ListBucketResult root of a successful reply."""
    root = reply.assert_ok().xml
    assert root is not None and root.tag == "ListBucketResult", reply.body[:300]
    return root


def list_v1(s3: Any, bucket: str, **params: str) -> Any:
    query = [(k.replace("_", "-"), v) for k, v in params.items()]
    return s3.wire.request("GET", bucket, query=query)
