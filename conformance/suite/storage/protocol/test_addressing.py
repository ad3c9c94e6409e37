"""Path-style and virtual-hosted addressing reach the same bucket."""

from __future__ import annotations

import pytest

from conformance.clients.s3_raw import account_host


@pytest.mark.rule("storage.addressing.path-style")
def test_path_style_reaches_the_bucket(s3, bucket, names):
    """`{endpoint}/<bucket>/<key>` writes and reads the bucket's object."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"path-style").assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"path-style"
    listed = s3.wire.list_objects_v2(bucket).assert_ok()
    assert key in [e.text for e in listed.xml.iter("Key")], "the key is not listed"


@pytest.mark.rule("storage.addressing.path-style")
def test_path_style_with_a_trailing_slash_is_the_bucket(s3, bucket, names):
    """`{endpoint}/<bucket>/` (a trailing slash, as some clients send bucket requests) names
    the bucket, not an object: a key holds at least one character (S3's object key naming),
    so ListObjectsV2 there lists the bucket. An implementer splitting the path may take the
    empty rest for a key and answer as for an object."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"path-style").assert_ok()
    listed = s3.wire.request("GET", bucket, "", query=[("list-type", "2")])
    assert listed.status == 200 and listed.xml is not None, listed.describe()
    assert key in [e.text for e in listed.xml.iter("Key")], f"/{bucket}/ did not list the bucket"


@pytest.mark.rule("storage.addressing.virtual-hosted")
@pytest.mark.parametrize("shape", ["flat", "nested"])
def test_virtual_hosted_reaches_the_bucket(s3, bucket, names, shape):
    """Host `<bucket>.{account_id}.{storage_host}` with the path `/<key>` names the object,
    the whole path being the key (`nested`: a key holding slashes, which a path-style split
    would cut at its first segment)."""
    base = account_host(s3.surface)
    if base is None:
        pytest.skip("N/A: the target declares neither virtual_host nor account_id")
    key = names.key() if shape == "flat" else f"dir/sub/{names.key()}"
    s3.wire.put_object(bucket, key, b"virtual-hosted").assert_ok()
    host = {"Host": f"{bucket}.{base}"}
    # the path is `/<key>`: the wire client puts its first path segment where a bucket goes
    reply = s3.wire.request("GET", key, headers=host)
    assert reply.status == 200, f"virtual-hosted GET of {key}: status {reply.status}"
    assert reply.body == b"virtual-hosted"
    listed = s3.wire.request("GET", None, None, query=[("list-type", "2")], headers=host)
    assert listed.status == 200, f"virtual-hosted ListObjectsV2: status {listed.status}"
    assert key in [e.text for e in listed.xml.iter("Key")], "the key is not listed"
