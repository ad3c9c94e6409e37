"""Listings escape XML metacharacters in names and render LastModified as S3 does.

An implementer may escape only some names (or none: a key with `&` or `<` then breaks the
XML), or render LastModified with the wrong fraction. Names here carry every XML
metacharacter, in keys, common prefixes and the echoed Prefix.
"""

from __future__ import annotations

import datetime as dt
import re
from email.utils import parsedate_to_datetime

import pytest

from .support import fill, keys_of, list_v1, listed, prefixes_of

KEYS = ["x&<>'\"/a", "x&<>'\"/b", "y&amp;", "z<tag>"]
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$")


@pytest.mark.rule("storage.list-objects.delimiter", "storage.list-objects.prefix")
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_metacharacters_in_names_round_trip(s3, bucket, version):
    """Keys and prefixes with & < > ' " come back exactly (escaped on the wire, parsed back)."""
    fill(s3, bucket, KEYS)
    query = {"delimiter": "/"}
    lister = list_v1 if version == "v1" else lambda s3, b, **q: s3.wire.list_objects_v2(b, **q)
    reply = lister(s3, bucket, **query)
    root = listed(reply)
    assert sorted(keys_of(root)) == ["y&amp;", "z<tag>"], reply.body[:500]
    assert prefixes_of(root) == ["x&<>'\"/"], reply.body[:500]
    reply = s3.wire.list_objects_v2(bucket, prefix="x&<>'\"/")
    root = listed(reply)
    assert root.findtext("Prefix") == "x&<>'\"/"
    assert keys_of(root) == KEYS[:2]


@pytest.mark.rule("storage.list-objects.prefix", "storage.put-object.last-modified")
def test_listed_last_modified_is_iso8601_and_agrees_with_head(s3, bucket, names):
    """LastModified in a listing is ISO 8601 UTC (milliseconds at most) and the same second as
    HeadObject's Last-Modified."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"dated").assert_ok()
    head = s3.wire.request("HEAD", bucket, key).assert_ok().header("last-modified") or ""
    root = listed(s3.wire.list_objects_v2(bucket, prefix=key))
    [node] = [c for c in root.findall("Contents") if c.findtext("Key") == key]
    text = node.findtext("LastModified") or ""
    assert ISO.match(text), f"LastModified {text!r}"
    listed_at = dt.datetime.fromisoformat(text.replace("Z", "+00:00")).replace(microsecond=0)
    assert listed_at == parsedate_to_datetime(head), (text, head)
