"""Listing parameters at their edges: a key that starts with the delimiter, and an echoed
parameter that XML 1.0 cannot carry.

An implementer may roll a key up only when the delimiter sits after its first character
(`cut > 0` for `cut >= 0`: a key that starts with the delimiter, right where the prefix ends,
is then listed whole), or check the echoed names for characters XML cannot carry on one
encoding-type form only.
"""

from __future__ import annotations

import pytest

from .support import fill, keys_of, list_v1, listed, prefixes_of

VERSIONS = ["v1", "v2"]


def _list(s3, bucket, version, **params):
    if version == "v2":
        return s3.wire.list_objects_v2(bucket, **params)
    return list_v1(s3, bucket, **params)


@pytest.mark.rule("storage.list-objects.delimiter")
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("prefix", ["", "p"], ids=["no-prefix", "prefix"])
def test_key_starting_with_the_delimiter_rolls_up(s3, bucket, version, prefix):
    """With a delimiter, the keys whose remainder after the prefix starts with it roll up into
    the common prefix that is the prefix and the delimiter alone (S3's CommonPrefixes: the
    prefix up to the first delimiter after it), beside keys that hold no delimiter. `|`, not
    `/`, so that no target reads a key as a file path."""
    fill(s3, bucket, [f"{prefix}|a|1", f"{prefix}|b", f"{prefix}c", f"{prefix}d|e"])
    params = {"delimiter": "|"} | ({"prefix": prefix} if prefix else {})
    root = listed(_list(s3, bucket, version, **params))
    got = (keys_of(root), sorted(prefixes_of(root)))
    want = ([f"{prefix}c"], [f"{prefix}d|", f"{prefix}|"])
    assert got == want, f"{params}: (keys, common prefixes) {got!r}, want {want!r}"


def _echo_or_refusal(reply, tag: str, sent: str) -> None:
    """XML 1.0 cannot carry U+0001, not even as a character reference, so no well-formed page
    can echo it raw: the answer is a descriptive 4xx (a 200 is accepted only if its XML parses
    and renders `tag` as sent)."""
    if reply.status == 200:
        root = reply.xml
        assert root is not None, f"200 whose body is not well-formed XML; {reply.describe()}"
        assert root.findtext(tag) == sent, reply.describe()
        return
    assert 400 <= reply.status < 500, f"status {reply.status} {reply.error_code}, expected 4xx"
    assert reply.error_code and reply.error_code != "InternalError", reply.error_code
    assert reply.error_message, "no Message in the error"


CONTROL = "a\x01"


@pytest.mark.rule("storage.list-objects.renders-prefix")
@pytest.mark.parametrize("version", VERSIONS)
def test_prefix_with_a_control_character(s3, bucket, version):
    """A prefix holding U+0001, without encoding-type: a descriptive 4xx or a well-formed page
    that renders it (the spec renders Prefix)."""
    fill(s3, bucket, ["a"])
    _echo_or_refusal(_list(s3, bucket, version, prefix=CONTROL), "Prefix", CONTROL)


@pytest.mark.rule("storage.list-objects.renders-delimiter")
@pytest.mark.parametrize("version", VERSIONS)
def test_delimiter_with_a_control_character(s3, bucket, version):
    """The same for a delimiter holding U+0001 (the spec renders Delimiter)."""
    fill(s3, bucket, ["a"])
    _echo_or_refusal(_list(s3, bucket, version, delimiter=CONTROL), "Delimiter", CONTROL)


@pytest.mark.rule("storage.list-objects.renders-start-after")
def test_start_after_with_a_control_character(s3, bucket):
    """The same for a V2 start-after holding U+0001 (the spec renders StartAfter)."""
    fill(s3, bucket, ["a"])
    reply = s3.wire.list_objects_v2(bucket, start_after=CONTROL)
    _echo_or_refusal(reply, "StartAfter", CONTROL)
