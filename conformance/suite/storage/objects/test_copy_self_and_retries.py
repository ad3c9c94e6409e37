"""A self-copy that changes nothing, a self-copy that replaces metadata, a retried completion,
and max-keys=0: S3 answers S3 clients rely on where the spec is silent."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from conformance.clients import s3_multipart as mp

PART = 5 * 1024 * 1024
META = "meta-colour"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text(body: bytes, name: str) -> str | None:
    for node in ET.fromstring(body).iter():
        if _local(node.tag) == name:
            return node.text
    return None


@pytest.fixture
def stored(s3, bucket, names):
    """(bucket, key) of an object with user metadata colour=blue."""
    key = names.key()
    headers = {s3.wire.vendor(META): "blue"}
    s3.wire.put_object(bucket, key, b"body", headers=headers).assert_ok()
    return bucket, key


def _copy_onto_itself(s3, bucket, key, headers=None):
    sent = {s3.wire.vendor("copy-source"): f"/{bucket}/{key}", **(headers or {})}
    return s3.wire.request("PUT", bucket, key, headers=sent)


@pytest.mark.rule("storage.copy-object.self-copy-refused")
def test_self_copy_changing_nothing_is_refused(s3, stored):
    """A copy onto itself with the COPY directive and nothing else is 400 InvalidRequest."""
    bucket, key = stored
    _copy_onto_itself(s3, bucket, key).assert_error(400, "InvalidRequest")
    kept = s3.wire.get_object(bucket, key).assert_ok()
    assert kept.body == b"body" and kept.header(s3.wire.vendor(META)) == "blue"


@pytest.mark.rule("storage.copy-object.self-copy-replace")
def test_self_copy_with_replace_changes_metadata(s3, stored):
    """A copy onto itself with REPLACE is how a client changes an object's metadata: the
    custom metadata and the Content-Type sent with it (both, not only the first kind)."""
    bucket, key = stored
    headers = {
        s3.wire.vendor("metadata-directive"): "REPLACE",
        s3.wire.vendor(META): "red",
        "Content-Type": "text/x-replaced",
    }
    _copy_onto_itself(s3, bucket, key, headers).assert_ok()
    after = s3.wire.get_object(bucket, key).assert_ok()
    seen = (after.body, after.header(s3.wire.vendor(META)), after.header("content-type"))
    assert seen == (b"body", "red", "text/x-replaced"), f"after the REPLACE self-copy: {seen}"


@pytest.fixture
def completed(s3, bucket, names):
    """(bucket, key, upload id, parts, first completion's ETag) of a completed upload."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    parts = []
    for number, body in ((1, b"a" * PART), (2, b"tail")):
        parts.append((number, mp.etag(mp.upload_part(s3.wire, bucket, key, upload, number, body))))
    first = mp.complete(s3.wire, bucket, key, upload, parts).assert_ok()
    etag = _text(first.body, "ETag")
    assert first.status == 200 and etag, f"the first completion failed: {first.body[:300]!r}"
    return bucket, key, upload, parts, etag


@pytest.mark.rule("storage.complete-multipart-upload.retry-same-answer")
@pytest.mark.parametrize("declared", [False, True], ids=["plain", "xml-declaration"])
def test_retried_completion_succeeds_again(s3, completed, declared):
    """Retrying a completion that succeeded, with the same parts, answers the same success;
    also when the retry's body starts with an XML declaration (accepted in every XML body)."""
    bucket, key, upload, parts, etag = completed
    again = mp.complete(s3.wire, bucket, key, upload, parts, declaration=declared)
    assert again.status == 200, (
        f"retried POST {again.url}: {again.status} {again.error_code}; the first answered "
        f"200 with ETag {etag}"
    )
    assert _text(again.body, "ETag") == etag, f"retry ETag {_text(again.body, 'ETag')} != {etag}"


@pytest.mark.rule("storage.list-objects.max-keys-zero")
@pytest.mark.parametrize("form", ["v1", "v2"])
def test_max_keys_zero_is_empty_and_not_truncated(s3, bucket, names, form):
    """max-keys=0 asks for nothing: no keys, and nothing is marked as left out."""
    for _ in range(2):
        s3.wire.put_object(bucket, names.key(), b"").assert_ok()
    query = [("max-keys", "0")] + ([("list-type", "2")] if form == "v2" else [])
    reply = s3.wire.request("GET", bucket, query=query).assert_ok()
    keys = [n for n in ET.fromstring(reply.body).iter() if _local(n.tag) == "Contents"]
    truncated = _text(reply.body, "IsTruncated")
    assert (len(keys), truncated) == (0, "false"), (
        f"GET {reply.url}: {len(keys)} keys, IsTruncated {truncated}; expected 0 and false"
    )
