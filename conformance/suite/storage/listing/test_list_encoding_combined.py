"""encoding-type=url combined with every list parameter, V1 and V2, and the 1000-entry page cap.

An implementer may URL-encode only <Key> and forget the names it echoes (Prefix, Delimiter,
StartAfter, Marker, NextMarker) and the rolled-up CommonPrefixes, or honour any max-keys.
Names here hold a space, `é` and `+`, and the delimiter is `|`, so each must be encoded.
"""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from .support import fill, keys_of, list_v1, listed, prefixes_of

KEYS = ["a b|1", "a b|2", "a b+é", "a b+é|x|y", "zz"]
PREFIX, DELIM = "a b", "|"


def _decoded(text: str | None) -> str | None:
    return None if text is None else unquote(text.replace("+", " "))


def _encoded(root, tag: str, raw: str) -> None:
    """`tag` is present, differs from `raw` (it needed encoding) and decodes to it."""
    text = root.findtext(tag)
    assert text is not None, f"<{tag}> missing"
    assert text != raw, f"<{tag}> {text!r} is not URL-encoded"
    assert _decoded(text) == raw, f"<{tag}> {text!r} does not decode to {raw!r}"


def _check_entries(root) -> None:
    keys, prefixes = keys_of(root), prefixes_of(root)
    assert [_decoded(k) for k in keys] == ["a b+é"], keys
    assert sorted(_decoded(p) or "" for p in prefixes) == ["a b+é|", "a b|"], prefixes
    for text in keys + prefixes:
        assert " " not in text and "é" not in text and "|" not in text, f"not encoded: {text!r}"


@pytest.fixture
def encoded_bucket(s3, bucket):
    fill(s3, bucket, KEYS)
    return bucket


@pytest.mark.rule("storage.list-objects.encoding-type")
def test_v2_encodes_prefix_delimiter_start_after_and_common_prefixes(s3, encoded_bucket):
    """V2: Key, CommonPrefixes, Prefix, Delimiter and StartAfter all come back URL-encoded."""
    reply = s3.wire.list_objects_v2(
        encoded_bucket, encoding_type="url", prefix=PREFIX, delimiter=DELIM, start_after="a b!"
    )
    root = listed(reply)
    assert root.findtext("EncodingType") == "url"
    _check_entries(root)
    _encoded(root, "Prefix", PREFIX)
    _encoded(root, "Delimiter", DELIM)
    _encoded(root, "StartAfter", "a b!")


@pytest.mark.rule("storage.list-objects.encoding-type")
def test_v2_without_encoding_type_returns_names_raw(s3, encoded_bucket):
    """Without encoding-type nothing is encoded (the control of the test above)."""
    root = listed(s3.wire.list_objects_v2(encoded_bucket, prefix=PREFIX, delimiter=DELIM))
    assert root.findtext("EncodingType") is None
    assert keys_of(root) == ["a b+é"]
    assert sorted(prefixes_of(root)) == sorted(["a b|", "a b+é|"])
    assert root.findtext("Prefix") == PREFIX and root.findtext("Delimiter") == DELIM


@pytest.mark.rule("storage.list-objects.encoding-type")
def test_v1_encodes_prefix_delimiter_marker_and_common_prefixes(s3, encoded_bucket):
    """V1 honours encoding-type too: Key, CommonPrefixes, Prefix, Delimiter, Marker encoded."""
    reply = list_v1(
        s3, encoded_bucket, encoding_type="url", prefix=PREFIX, delimiter=DELIM, marker="a b!"
    )
    root = listed(reply)
    assert root.findtext("EncodingType") == "url"
    _check_entries(root)
    _encoded(root, "Prefix", PREFIX)
    _encoded(root, "Delimiter", DELIM)
    _encoded(root, "Marker", "a b!")


@pytest.mark.rule("storage.list-objects.encoding-type")
def test_v1_next_marker_encoded_when_truncated(s3, encoded_bucket):
    """A truncated V1 page with a delimiter: NextMarker is encoded and continues the listing."""
    root = listed(list_v1(s3, encoded_bucket, encoding_type="url", delimiter=DELIM, max_keys="1"))
    assert root.findtext("IsTruncated") == "true"
    first = [_decoded(p) for p in prefixes_of(root)] + [_decoded(k) for k in keys_of(root)]
    assert first == ["a b+é"], first
    _encoded(root, "NextMarker", "a b+é")


@pytest.mark.rule("storage.list-objects.max-keys")
def test_page_capped_at_1000_entries(s3, bucket):
    """1001 keys: a page holds at most 1000 entries whatever max-keys asks (none, 1000, 1001,
    5000), is truncated, renders a MaxKeys of 1000 at most, and the next page holds the rest;
    max-keys=1 and 999 are honoured below the cap."""
    wanted = [f"k{n:04d}" for n in range(1001)]
    fill(s3, bucket, wanted)
    for asked, size in ((None, 1000), ("1000", 1000), ("1001", 1000), ("5000", 1000), ("999", 999)):
        params = {"max_keys": asked} if asked else {}
        root = listed(s3.wire.list_objects_v2(bucket, **params))
        page = keys_of(root)
        assert len(page) == size, f"max-keys={asked}: {len(page)} entries in one page"
        rendered = int(root.findtext("MaxKeys") or "-1")
        assert size <= rendered <= 1000, f"max-keys={asked}: MaxKeys {rendered}"
        assert root.findtext("IsTruncated") == "true", f"max-keys={asked}: not truncated"
        token = root.findtext("NextContinuationToken")
        assert token, f"max-keys={asked}: no NextContinuationToken"
        rest = listed(s3.wire.list_objects_v2(bucket, continuation_token=token, **params))
        assert page + keys_of(rest) == wanted, f"max-keys={asked}: pages do not join"


@pytest.mark.rule("storage.list-objects.renders-max-keys")
@pytest.mark.parametrize(("asked", "shown"), [(None, "1000"), ("1000", "1000"), ("999", "999")])
def test_max_keys_rendered_up_to_the_cap(s3, bucket, asked, shown):
    """MaxKeys is rendered as the page size in force: the default 1000, or what was asked up to
    the cap. (What a target renders above the cap follows from whether it caps at all, which
    is max-keys' rule, judged in the test above.)"""
    fill(s3, bucket, ["k"])
    params = {"max_keys": asked} if asked else {}
    root = listed(s3.wire.list_objects_v2(bucket, **params))
    rendered = root.findtext("MaxKeys")
    assert rendered == shown, f"max-keys={asked}: MaxKeys {rendered!r}"
