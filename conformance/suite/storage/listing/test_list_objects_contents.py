"""Every field of a listed object, in both listing versions: Key, ETag, Size, LastModified,
StorageClass.

An implementer may render the listing's ETag bare where HeadObject quotes it, write a Size
that is not the object's, or leave StorageClass out: the other listing tests read keys only.
S3's ListObjects / ListObjectsV2 reference gives each Contents its Key, LastModified, ETag (the
object's entity tag, as HeadObject answers it), Size in bytes and StorageClass.
"""

from __future__ import annotations

import datetime as dt
from email.utils import parsedate_to_datetime

import pytest

from .support import list_v1, listed

BODIES = {"contents/a": b"five!", "contents/b": b"x" * 1234}


@pytest.mark.rule("storage.list-objects.contents-fields")
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_each_listed_field_agrees_with_head(s3, bucket, version):
    """Each Contents' ETag is HeadObject's ETag (quotes included), Size the body's length,
    LastModified the same second as Last-Modified, StorageClass present."""
    heads = {}
    for key, body in BODIES.items():
        s3.wire.put_object(bucket, key, body).assert_ok()
        heads[key] = s3.wire.request("HEAD", bucket, key).assert_ok()
    if version == "v1":
        root = listed(list_v1(s3, bucket, prefix="contents/"))
    else:
        root = listed(s3.wire.list_objects_v2(bucket, prefix="contents/"))
    nodes = {node.findtext("Key"): node for node in root.findall("Contents")}
    assert sorted(nodes) == sorted(BODIES), f"{version}: listed {sorted(nodes)}"
    for key, node in nodes.items():
        head = heads[key]
        assert node.findtext("ETag") == head.header("etag"), (
            f"{version} {key}: listed ETag {node.findtext('ETag')!r}, "
            f"HeadObject {head.header('etag')!r}"
        )
        assert node.findtext("Size") == str(len(BODIES[key])), (
            f"{version} {key}: Size {node.findtext('Size')!r}, body {len(BODIES[key])} bytes"
        )
        text = node.findtext("LastModified") or ""
        listed_at = dt.datetime.fromisoformat(text.replace("Z", "+00:00")).replace(microsecond=0)
        assert listed_at == parsedate_to_datetime(head.header("last-modified") or ""), (
            f"{version} {key}: LastModified {text!r}, HEAD {head.header('last-modified')!r}"
        )
        assert (node.findtext("StorageClass") or "").strip(), f"{version} {key}: no StorageClass"
