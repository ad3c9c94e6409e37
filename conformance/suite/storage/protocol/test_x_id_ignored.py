"""The x-id query parameter and the x-purpose parameter are ignored."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.protocol.x-id-ignored")
def test_x_id_on_put_get_list(s3, bucket, names):
    """PutObject, GetObject and ListObjectsV2 with a matching x-id behave as without it."""
    key = names.key()
    s3.wire.request("PUT", bucket, key, query=[("x-id", "PutObject")], body=b"data").assert_ok()
    got = s3.wire.request("GET", bucket, key, query=[("x-id", "GetObject")]).assert_ok()
    assert got.body == b"data"
    query = [("list-type", "2"), ("x-id", "ListObjectsV2")]
    listing = s3.wire.request("GET", bucket, query=query).assert_ok()
    assert f"<Key>{key}</Key>".encode() in listing.body


@pytest.mark.rule("storage.protocol.x-id-ignored")
def test_x_id_on_missing_key_keeps_error(s3, bucket, names):
    """An x-id does not change the error of the operation: GetObject of a missing key is 404."""
    reply = s3.wire.request("GET", bucket, names.key(), query=[("x-id", "GetObject")])
    reply.assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.protocol.x-id-mismatch-ignored")
@pytest.mark.parametrize("claimed", ["PutObject", "DeleteObject", "ListObjectsV2"])
def test_x_id_naming_other_operation(s3, bucket, names, claimed):
    """A GetObject whose x-id names another operation still reads the object."""
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=b"still here")
    reply = s3.wire.request("GET", bucket, key, query=[("x-id", claimed)]).assert_ok()
    assert reply.body == b"still here"
    s3.wire.get_object(bucket, key).assert_ok()


@pytest.mark.rule("storage.protocol.x-purpose-ignored")
@pytest.mark.parametrize("where", ["query", "header"])
def test_x_purpose_ignored(s3, bucket, names, where):
    """GetObject and ListObjectsV2 with x-purpose behave as without it."""
    key = names.key()
    s3.boto.put_object(Bucket=bucket, Key=key, Body=b"purpose")
    query = [("x-purpose", "preview")] if where == "query" else []
    headers = {"x-purpose": "preview"} if where == "header" else {}
    got = s3.wire.request("GET", bucket, key, query=query, headers=headers).assert_ok()
    assert got.body == b"purpose"
    listing = s3.wire.request(
        "GET", bucket, query=[("list-type", "2"), *query], headers=headers
    ).assert_ok()
    assert f"<Key>{key}</Key>".encode() in listing.body
