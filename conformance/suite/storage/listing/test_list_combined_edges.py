"""Listing parameters at their edges: a key that starts with the delimiter, and an echoed
parameter that XML 1.0 cannot carry.

An implementer may roll a key up only when the delimiter sits after its first character
(`cut > 0` for `cut >= 0`: a key that starts with the delimiter, right where the prefix ends,
is then listed whole), or refuse an echoed name XML cannot carry on the wrong encoding-type
form (encoding-type=url, which carries it, refused).
"""

from __future__ import annotations

from urllib.parse import unquote

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


CONTROL = "a\x01"
# U+0001 as a page may carry it: raw, or as the character reference AWS S3 is observed to write
# (neither is well-formed XML 1.0; AWS: "XML 1.0 parser cannot parse some characters, such as
# characters with an ASCII value from 0 to 10", encoding-type=url being the way around it)
RENDERED = [CONTROL.encode(), b"a&#x1;", b"a&#1;", b"a&#x01;"]


def _echo_or_refusal(reply, tag: str, sent: str) -> None:
    """Without encoding-type, XML 1.0 cannot carry U+0001, not even as a character reference.
    What S3 answers is then left open: a descriptive 4xx, a well-formed page that renders `tag`
    as sent, or S3's own page that renders it anyway (not parseable, which is why AWS offers
    encoding-type=url). Never a 5xx, never a page that drops or alters the value."""
    if reply.status == 200:
        root = reply.xml
        if root is not None:
            assert root.findtext(tag) == sent, reply.describe()
            return
        held = [f"<{tag}>".encode() + form + f"</{tag}>".encode() for form in RENDERED]
        assert any(h in reply.body for h in held), (
            f"{tag} {sent!r} not rendered; {reply.describe()}"
        )
        return
    assert 400 <= reply.status < 500, f"status {reply.status} {reply.error_code}, expected 4xx"
    assert reply.error_code and reply.error_code != "InternalError", reply.error_code
    assert reply.error_message, "no Message in the error"


def _encoded_echo(reply, tag: str, sent: str) -> None:
    """With encoding-type=url the echo is URL-encoded (AWS: Delimiter, Prefix, Key and
    StartAfter are encoded), which XML carries: a well-formed page rendering `sent` encoded."""
    root = listed(reply)
    got = root.findtext(tag)
    assert got is not None and unquote(got) == sent, f"{tag} {got!r}, want {sent!r} encoded"


@pytest.mark.rule("storage.list-objects.renders-prefix")
@pytest.mark.parametrize("version", VERSIONS)
def test_prefix_with_a_control_character(s3, bucket, version):
    """A prefix holding U+0001, without encoding-type: a descriptive 4xx or a page that renders
    it (the spec renders Prefix)."""
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


# (version, parameter, element): S3 encodes Prefix and Delimiter (V1, V2) and StartAfter (V2)
ENCODED = [("v1", "prefix", "Prefix"), ("v2", "prefix", "Prefix"), ("v1", "delimiter", "Delimiter"),
           ("v2", "delimiter", "Delimiter"), ("v2", "start_after", "StartAfter")]  # fmt: skip


@pytest.mark.rule("storage.list-objects.encoding-type")
@pytest.mark.parametrize(("version", "param", "tag"), ENCODED)
def test_control_character_echoed_url_encoded(s3, bucket, version, param, tag):
    """With encoding-type=url the same U+0001 is what the encoding is for: a well-formed page
    that echoes the parameter encoded (AWS: Delimiter, Prefix, Key and StartAfter are encoded),
    not a refusal meant for the raw form."""
    fill(s3, bucket, ["a"])
    reply = _list(s3, bucket, version, encoding_type="url", **{param: CONTROL})
    _encoded_echo(reply, tag, CONTROL)
