"""ListObjectsV2 parameters: prefix, delimiter, max-keys, start-after, continuation-token."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from conformance.suite.setup_check import require

from .support import fill, keys_of, list_v1, listed, prefixes_of

KEYS = ["a/1", "a/2", "b/1", "c", "d/x/1", "e"]


@pytest.fixture
def filled(s3, bucket):
    fill(s3, bucket, KEYS)
    return bucket


# ListObjects is both V1 and V2: each behaviour is checked on both forms (a target may honour a
# parameter on one and ignore it on the other), and each rule has its own test, so a listing that
# filters right but renders wrong fails only the rendering rule.
VERSIONS = ["v1", "v2"]


def _list(s3, bucket, version, **params):
    if version == "v2":
        return listed(s3.wire.list_objects_v2(bucket, **params))
    return listed(list_v1(s3, bucket, **params))


@pytest.mark.rule("storage.list-objects.prefix")
@pytest.mark.parametrize("version", VERSIONS)
def test_prefix_filters(s3, filled, version):
    """Only keys under the prefix are listed."""
    keys = keys_of(_list(s3, filled, version, prefix="a/"))
    assert keys == ["a/1", "a/2"], f"prefix a/ listed {keys}"


@pytest.mark.rule("storage.list-objects.renders-prefix")
@pytest.mark.parametrize("version", VERSIONS)
def test_prefix_rendered(s3, filled, version):
    """The list response renders Prefix."""
    root = _list(s3, filled, version, prefix="a/")
    assert root.findtext("Prefix") == "a/", f"Prefix {root.findtext('Prefix')!r}, sent 'a/'"


@pytest.mark.rule("storage.list-objects.delimiter")
@pytest.mark.parametrize("version", VERSIONS)
def test_delimiter_rolls_up(s3, filled, version):
    """With a delimiter, keys below it roll up into CommonPrefixes."""
    root = _list(s3, filled, version, delimiter="/")
    got = (keys_of(root), prefixes_of(root))
    assert got == (["c", "e"], ["a/", "b/", "d/"]), f"(keys, common prefixes) {got}"


@pytest.mark.rule("storage.list-objects.delimiter")
@pytest.mark.parametrize("version", VERSIONS)
def test_delimiter_at_the_last_code_point(s3, bucket, version):
    """A delimiter of U+10FFFF, the last code point a UTF-8 key can hold: the keys before it
    roll up into one common prefix that ends in it, and the listing goes on past that prefix
    to the keys after it (nothing sorts between, so a listing that skips a rolled-up prefix
    by stepping its last character up has no next character to step to)."""
    top = "\U0010ffff"
    fill(s3, bucket, [f"a{top}1", f"a{top}2", "b"])
    root = _list(s3, bucket, version, delimiter=top)
    assert prefixes_of(root) == [f"a{top}"], f"CommonPrefixes {prefixes_of(root)!r}"
    assert keys_of(root) == ["b"], f"Contents {keys_of(root)!r}"


# A delimiter's last character beside a gap of the code point order: the surrogates (U+D800 to
# U+DFFF, which no UTF-8 key holds) and the top (U+10FFFE, U+10FFFF). Each pair is a delimiter
# and the least character after it that a key can hold.
EDGES = [("\ud7fe", "\ud7ff"), ("\ud7ff", "\ue000"), ("\ue000", "\ue001")]
EDGES += [("\U0010fffe", "\U0010ffff")]


@pytest.mark.rule("storage.list-objects.delimiter")
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("delimiter", "following"), EDGES, ids=[f"U+{ord(d):04X}" for d, _ in EDGES]
)
def test_delimiter_beside_a_code_point_gap(s3, bucket, version, delimiter, following):
    """The key that sorts right after a rolled-up prefix is listed, once, beside the prefix,
    when the delimiter ends next to the surrogate gap or the top of the code points (keys list
    in UTF-8 binary order, which is code point order). A listing that skips the rest of a
    prefix by stepping its last character up must step to the next character a key can hold:
    stepping into the surrogates, over the next character, or not at all shows here."""
    fill(s3, bucket, [f"a{delimiter}1", f"a{delimiter}2", f"a{following}", "b"])
    root = _list(s3, bucket, version, delimiter=delimiter)
    got = (keys_of(root), prefixes_of(root))
    want = ([f"a{following}", "b"], [f"a{delimiter}"])
    assert got == want, f"(keys, common prefixes) {got!r}, want {want!r}"


@pytest.mark.rule("storage.list-objects.renders-delimiter")
@pytest.mark.parametrize("version", VERSIONS)
def test_delimiter_rendered(s3, filled, version):
    """The list response renders Delimiter."""
    root = _list(s3, filled, version, delimiter="/")
    assert root.findtext("Delimiter") == "/", f"Delimiter {root.findtext('Delimiter')!r}"


@pytest.mark.rule("storage.list-objects.max-keys")
@pytest.mark.parametrize("version", VERSIONS)
def test_max_keys_limits(s3, filled, version):
    """At most MaxKeys entries come back and the listing is marked truncated."""
    root = _list(s3, filled, version, max_keys="2")
    keys, truncated = keys_of(root), root.findtext("IsTruncated")
    assert keys == ["a/1", "a/2"], f"max-keys=2 listed {keys}"
    assert truncated == "true", f"max-keys=2 of {len(KEYS)} keys: IsTruncated {truncated!r}"


@pytest.mark.rule("storage.list-objects.renders-max-keys")
@pytest.mark.parametrize("version", VERSIONS)
def test_max_keys_rendered(s3, filled, version):
    """The list response renders MaxKeys."""
    root = _list(s3, filled, version, max_keys="2")
    assert root.findtext("MaxKeys") == "2", f"MaxKeys {root.findtext('MaxKeys')!r}, sent 2"


@pytest.mark.rule("storage.list-objects.start-after")
def test_start_after_honoured(s3, filled):
    """start-after skips keys up to and including it (a V2 parameter)."""
    keys = keys_of(listed(s3.wire.list_objects_v2(filled, start_after="b/1")))
    assert keys == ["c", "d/x/1", "e"], f"start-after b/1 listed {keys}"


@pytest.mark.rule("storage.list-objects.renders-start-after")
def test_start_after_rendered(s3, filled):
    """The list response renders StartAfter."""
    root = listed(s3.wire.list_objects_v2(filled, start_after="b/1"))
    assert root.findtext("StartAfter") == "b/1", f"StartAfter {root.findtext('StartAfter')!r}"


@pytest.mark.rule("storage.list-objects.renders-start-after")
def test_start_after_rendered_on_a_continued_page(s3, filled):
    """A page asked with start-after and a continuation token renders StartAfter too (S3's
    ListObjectsV2: "If StartAfter was sent with the request, it is included in the
    response"), not only the first page. An implementer may echo it only while no token is
    in play, since the token is what positions the page then."""
    first = listed(s3.wire.list_objects_v2(filled, start_after="a/1", max_keys="1"))
    token = first.findtext("NextContinuationToken")
    assert token, f"start-after=a/1, max-keys=1: no NextContinuationToken ({len(KEYS)} keys)"
    root = listed(
        s3.wire.list_objects_v2(filled, start_after="a/1", continuation_token=token, max_keys="1")
    )
    assert root.findtext("StartAfter") == "a/1", (
        f"continued page: StartAfter {root.findtext('StartAfter')!r}, sent 'a/1'"
    )


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


@pytest.mark.rule("storage.list-objects.fetch-owner")
@pytest.mark.parametrize("fetch", [None, "false", "true"])
def test_owner_only_with_fetch_owner_true(s3, filled, fetch):
    """Without fetch-owner, and with fetch-owner=false (a switch turned off), no <Owner> in
    the V2 listing; with fetch-owner=true every object has one."""
    params = {"fetch_owner": fetch} if fetch else {}
    root = listed(s3.wire.list_objects_v2(filled, **params))
    contents = [node for node in root.iter() if node.tag.rsplit("}", 1)[-1] == "Contents"]
    require(contents, "the listing of six keys has no Contents")
    owned = [any(child.tag.rsplit("}", 1)[-1] == "Owner" for child in node) for node in contents]
    if fetch == "true":
        assert all(owned), f"fetch-owner=true: {owned.count(False)} Contents without Owner"
    else:
        assert not any(owned), f"fetch-owner={fetch}: {owned.count(True)} Contents with Owner"
