"""ListObjectsV2 parameters: prefix, delimiter, max-keys, start-after, continuation-token."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from conformance.suite.setup_check import require

from .listing_support import fill, keys_of, listed, prefixes_of

KEYS = ["a/1", "a/2", "b/1", "c", "d/x/1", "e"]


@pytest.fixture
def filled(s3, bucket):
    fill(s3, bucket, KEYS)
    return bucket


@pytest.mark.rule("storage.list-objects.prefix", "storage.list-objects.renders-prefix")
def test_prefix_filters_and_is_rendered(s3, filled):
    """Only keys under the prefix are listed, and Prefix is rendered."""
    root = listed(s3.wire.list_objects_v2(filled, prefix="a/"))
    assert keys_of(root) == ["a/1", "a/2"]
    assert root.findtext("Prefix") == "a/"


@pytest.mark.rule("storage.list-objects.delimiter", "storage.list-objects.renders-delimiter")
def test_delimiter_rolls_up_and_is_rendered(s3, filled):
    """With a delimiter, keys below it roll up into CommonPrefixes; Delimiter is rendered."""
    root = listed(s3.wire.list_objects_v2(filled, delimiter="/"))
    assert keys_of(root) == ["c", "e"]
    assert prefixes_of(root) == ["a/", "b/", "d/"]
    assert root.findtext("Delimiter") == "/"


@pytest.mark.rule("storage.list-objects.max-keys", "storage.list-objects.renders-max-keys")
def test_max_keys_limits_and_is_rendered(s3, filled):
    """At most MaxKeys entries come back, the listing is marked truncated, MaxKeys rendered."""
    root = listed(s3.wire.list_objects_v2(filled, max_keys="2"))
    assert keys_of(root) == ["a/1", "a/2"]
    assert root.findtext("IsTruncated") == "true"
    assert root.findtext("MaxKeys") == "2"
    assert root.findtext("NextContinuationToken")


@pytest.mark.rule("storage.list-objects.start-after", "storage.list-objects.renders-start-after")
def test_start_after_honoured_and_rendered(s3, filled):
    """start-after skips keys up to and including it, and StartAfter is rendered."""
    root = listed(s3.wire.list_objects_v2(filled, start_after="b/1"))
    assert keys_of(root) == ["c", "d/x/1", "e"]
    assert root.findtext("StartAfter") == "b/1"


def _pages(s3, bucket):
    """(token sent, page) for each page of a max-keys=2 walk that follows NextContinuationToken."""
    pages, token = [], None
    for _ in range(len(KEYS) + 1):
        params = {"max_keys": "2"} | ({"continuation_token": token} if token else {})
        root = listed(s3.wire.list_objects_v2(bucket, **params))
        pages.append((token, root))
        token = root.findtext("NextContinuationToken")
        if root.findtext("IsTruncated") != "true":
            break
    return pages


@pytest.mark.rule("storage.list-objects.continuation-token")
def test_pages_join_up(s3, filled):
    """Pages joined by continuation tokens give every key once."""
    seen = [key for _, root in _pages(s3, filled) for key in keys_of(root)]
    assert seen == sorted(KEYS), f"pages joined to {seen}, expected {sorted(KEYS)}"


@pytest.mark.rule("storage.list-objects.continuation-token-echoed")
def test_token_echoed(s3, filled):
    """Each page asked for with a continuation-token echoes it as ContinuationToken."""
    followed = [(token, root) for token, root in _pages(s3, filled) if token]
    require(followed, "max-keys=2 over six keys gave no second page to ask for")
    for token, root in followed:
        echoed = root.findtext("ContinuationToken")
        assert echoed == token, f"ContinuationToken {echoed!r}, sent {token!r}"


@pytest.mark.rule("storage.list-objects.encoding-type")
def test_encoding_type_url(s3, bucket):
    """encoding-type=url URL-encodes keys and says so in EncodingType."""
    key = "sp ace/é+%"
    fill(s3, bucket, [key])
    reply = s3.wire.list_objects_v2(bucket, encoding_type="url")
    root = listed(reply)
    assert root.findtext("EncodingType") == "url"
    [listed_key] = keys_of(root)
    assert listed_key != key, f"key not encoded: {listed_key!r}"
    assert unquote(listed_key.replace("+", " ")) == key, listed_key


@pytest.mark.rule("storage.list-objects.key-count")
def test_key_count_counts_prefixes(s3, filled):
    """KeyCount equals the keys plus the common prefixes returned."""
    root = listed(s3.wire.list_objects_v2(filled, delimiter="/"))
    assert root.findtext("KeyCount") == str(len(keys_of(root)) + len(prefixes_of(root)))
    assert root.findtext("KeyCount") == "5"


@pytest.mark.rule("storage.list-objects.empty-folders")
def test_empty_folder_is_common_prefix(s3, bucket):
    """A key ending in the delimiter (an empty folder) appears as a common prefix."""
    fill(s3, bucket, ["folder/", "top"])
    root = listed(s3.wire.list_objects_v2(bucket, delimiter="/"))
    assert prefixes_of(root) == ["folder/"]
    assert keys_of(root) == ["top"]


@pytest.mark.rule("storage.list-objects.common-prefix-once")
@pytest.mark.parametrize("page", [1, 2, 3])
def test_common_prefix_once_across_pages(s3, bucket, page):
    """Paging through a delimited listing never repeats a common prefix."""
    fill(s3, bucket, ["a/1", "a/2", "a/3", "b/1", "b/2", "c", "d/1"])
    seen: list[str] = []
    token = None
    for _ in range(20):
        params = {"delimiter": "/", "max_keys": str(page)}
        if token:
            params["continuation_token"] = token
        root = listed(s3.wire.list_objects_v2(bucket, **params))
        seen += prefixes_of(root) + keys_of(root)
        token = root.findtext("NextContinuationToken")
        if root.findtext("IsTruncated") != "true":
            break
    assert sorted(seen) == ["a/", "b/", "c", "d/"], seen
