"""ListObjects edge cases: unsupported parameters, cursors, NextMarker, per_page."""

from __future__ import annotations

import pytest

from .support import fill, keys_of, list_v1, listed


def _search(s3, bucket, version):
    query = [("search", "colour=blue")]
    if version == "v2":
        query.insert(0, ("list-type", "2"))
    return s3.wire.request("GET", bucket, query=query)


@pytest.mark.rule("storage.list-objects.unsupported-parameter")
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_unsupported_parameter_is_refused(s3, bucket, version):
    """An unsupported search parameter is refused (an error status), not ignored with a listing;
    which status and code is the SHOULD rule's business."""
    reply = _search(s3, bucket, version)
    assert reply.status >= 400, f"expected a refusal; {reply._describe()}"


@pytest.mark.rule("storage.list-objects.unsupported-parameter-501")
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_unsupported_parameter_is_501(s3, bucket, version):
    """An unsupported search parameter answers 501 NotImplemented."""
    _search(s3, bucket, version).assert_error(501, "NotImplemented")


@pytest.mark.rule("storage.list-objects.no-cursor-at-max-keys")
@pytest.mark.parametrize("count", [1, 3])
def test_no_cursor_when_exactly_full(s3, bucket, count):
    """When the keys equal MaxKeys and nothing follows, no cursor and no truncation."""
    fill(s3, bucket, [f"k{i}" for i in range(count)])
    root = listed(s3.wire.list_objects_v2(bucket, max_keys=str(count)))
    assert len(keys_of(root)) == count
    assert root.findtext("IsTruncated") == "false"
    assert root.find("NextContinuationToken") is None


def _v1_pages_follow(s3, bucket, first, rest):
    """The first page was truncated: it has a NextMarker that continues the listing to `rest`
    (keys, prefixes) on a last page that is not truncated and has no NextMarker."""
    marker = first.findtext("NextMarker")
    assert marker, "a truncated V1 page with a delimiter has no NextMarker"
    # its value is the target's; that it continues the listing is what a client relies on
    last = listed(list_v1(s3, bucket, delimiter="/", marker=marker))
    got = (keys_of(last), [p.findtext("Prefix") for p in last.findall("CommonPrefixes")])
    assert got == rest, f"marker {marker!r} continued with (keys, prefixes) {got}"
    assert last.findtext("IsTruncated") == "false", (
        f"last page IsTruncated {last.findtext('IsTruncated')!r}"
    )
    assert last.find("NextMarker") is None, last.findtext("NextMarker")
    whole = listed(list_v1(s3, bucket, delimiter="/"))
    assert whole.findtext("IsTruncated") == "false"
    assert whole.find("NextMarker") is None, whole.findtext("NextMarker")


@pytest.mark.rule("storage.list-objects.v1-next-marker")
def test_v1_next_marker_only_when_truncated(s3, bucket):
    """V1 sets NextMarker on a page truncated by plain keys and leaves it out of the last page
    (S3 returns NextMarker only with a delimiter, so one is sent)."""
    fill(s3, bucket, ["a", "b", "c", "d/1"])
    first = listed(list_v1(s3, bucket, delimiter="/", max_keys="2"))
    assert keys_of(first) == ["a", "b"], f"max-keys=2 page holds {keys_of(first)}"
    assert first.findtext("IsTruncated") == "true", (
        f"max-keys=2 of 4 entries: IsTruncated {first.findtext('IsTruncated')!r}"
    )
    _v1_pages_follow(s3, bucket, first, (["c"], ["d/"]))


@pytest.mark.rule("storage.list-objects.v1-next-marker")
def test_v1_next_marker_before_a_common_prefix(s3, bucket):
    """The same when the entry left for the next page is a common prefix. Whether a common
    prefix counts against MaxKeys (so that the page is truncated there at all) is max-keys'
    rule: a target that does not truncate here is not judged on NextMarker (N/A, named)."""
    fill(s3, bucket, ["a", "b", "c/1"])
    first = listed(list_v1(s3, bucket, delimiter="/", max_keys="2"))
    if first.findtext("IsTruncated") != "true":
        pytest.skip(
            "N/A: max-keys=2 of 2 keys and 1 common prefix was not truncated "
            f"(IsTruncated {first.findtext('IsTruncated')!r}; counting prefixes against "
            "MaxKeys is storage.list-objects.max-keys' rule), so NextMarker before a prefix "
            "cannot be judged on this target"
        )
    _v1_pages_follow(s3, bucket, first, ([], ["c/"]))


@pytest.mark.rule("storage.list-objects.invalid-cursor")
@pytest.mark.parametrize("token", ["not-a-token", "%%%", "AAAA"])
def test_invalid_cursor_is_descriptive_4xx(s3, bucket, token):
    """A garbled continuation token answers a 4xx with a code and message, not InternalError."""
    reply = s3.wire.list_objects_v2(bucket, continuation_token=token)
    assert 400 <= reply.status < 500, f"status {reply.status} {reply.error_code}, expected 4xx"
    assert reply.error_code and reply.error_code != "InternalError", reply.error_code
    assert reply.error_message, "no Message in the error"


@pytest.mark.rule("storage.list-objects.per-page")
@pytest.mark.parametrize("param", ["per_page", "max-keys"])
def test_zero_page_is_empty_200(s3, bucket, param):
    """per_page=0 and max-keys=0 answer 200 with no keys."""
    fill(s3, bucket, ["k1", "k2"])
    query = [("list-type", "2"), (param, "0")]
    root = listed(s3.wire.request("GET", bucket, query=query))
    assert keys_of(root) == []


@pytest.mark.rule("storage.list-objects.invalid-cursor")
def test_issued_token_with_control_character(s3, bucket):
    """A token the target issued, with U+0001 appended, is a cursor the target never issued.
    The spec echoes ContinuationToken in V2, and XML 1.0 cannot carry U+0001 (not even as a
    character reference), so no well-formed 200 can echo it: the answer is a descriptive 4xx
    (a 200 is accepted only if its XML parses and echoes the token sent)."""
    fill(s3, bucket, ["a", "b"])
    first = listed(s3.wire.list_objects_v2(bucket, max_keys="1"))
    issued = first.findtext("NextContinuationToken")
    if not issued:
        pytest.skip("N/A: max-keys=1 of 2 keys gave no NextContinuationToken to alter")
    sent = issued + "\x01"
    reply = s3.wire.list_objects_v2(bucket, continuation_token=sent)
    if reply.status == 200:
        root = reply.xml
        assert root is not None, f"200 whose body is not well-formed XML; {reply.describe()}"
        assert root.findtext("ContinuationToken") == sent, reply.describe()
        return
    assert 400 <= reply.status < 500, f"status {reply.status} {reply.error_code}, expected 4xx"
    assert reply.error_code and reply.error_code != "InternalError", reply.error_code
    assert reply.error_message, "no Message in the error"
