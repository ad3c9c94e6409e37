"""DeleteObjects: what it deletes, untrimmed keys, the dated key limits, XML declarations."""

from __future__ import annotations

import base64
import hashlib

import pytest


def _deleted(reply):
    return {e.findtext("Key") for e in reply.xml.iter("Deleted")}


def _keys(s3, bucket):
    """Every key of the bucket (ListObjectsV2, following continuation)."""
    keys, token = [], None
    while True:
        params: dict[str, str] = {"continuation_token": token} if token else {}
        page = s3.wire.list_objects_v2(bucket, **params).assert_ok().xml
        keys += [e.text for e in page.iter("Key")]
        token = page.findtext("NextContinuationToken")
        if page.findtext("IsTruncated") != "true" or not token:
            return keys


@pytest.mark.rule("storage.delete-objects.deletes-listed")
def test_delete_objects_deletes_listed_keys(s3, bucket):
    """The listed keys are gone and reported Deleted; an unlisted key stays."""
    for key in ("a", "b", "keep"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, ["a", "b"]).assert_ok()
    assert _deleted(reply) == {"a", "b"}, reply.body[:300]
    assert _keys(s3, bucket) == ["keep"]


@pytest.mark.rule("storage.delete-objects.content-md5-mismatch")
def test_content_md5_of_another_body_is_refused(s3, bucket):
    """A Delete body sent with the Content-MD5 of another body (S3 uses the header "to ensure
    that your request body has not been altered in transit"): 400 BadDigest, and the key it
    lists is still there. An implementer may check the MD5 of object bodies only."""
    s3.wire.put_object(bucket, "a", b"x").assert_ok()
    body = (
        b'<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        b"<Quiet>false</Quiet><Object><Key>a</Key></Object></Delete>"
    )
    other = base64.b64encode(hashlib.md5(body + b" ").digest()).decode()
    headers = {"Content-MD5": other, "Content-Type": "application/xml"}
    reply = s3.wire.request("POST", bucket, query=[("delete", None)], body=body, headers=headers)
    reply.assert_error(400, "BadDigest")
    assert _keys(s3, bucket) == ["a"], "a DeleteObjects refused for its Content-MD5 deleted"


@pytest.mark.rule("storage.delete-objects.leading-spaces-kept")
def test_leading_spaces_are_kept(s3, bucket):
    """Deleting ` k` removes ` k`, not `k`."""
    for key in ("k", " k"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, [" k"]).assert_ok()
    assert _deleted(reply) == {" k"}, reply.body[:300]
    assert _keys(s3, bucket) == ["k"], "the trimmed key was deleted instead"


@pytest.mark.rule("storage.delete-objects.trailing-spaces-kept")
def test_trailing_spaces_are_kept(s3, bucket):
    """Deleting `k ` removes `k `, not `k`."""
    for key in ("k", "k "):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, ["k "]).assert_ok()
    assert _deleted(reply) == {"k "}, reply.body[:300]
    assert _keys(s3, bucket) == ["k"], "the trimmed key was deleted instead"


@pytest.mark.rule("storage.delete-objects.limit-128")
@pytest.mark.parametrize("count", [128, 129], ids=["at-limit", "over-by-one"])
def test_limit_128(s3, bucket, count):
    """Until 2022-07-01: 128 keys are taken, 129 are 400 MalformedXML."""
    reply = s3.wire.delete_objects(bucket, [f"k{i}" for i in range(count)], quiet=True)
    if count > 128:
        reply.assert_error(400, "MalformedXML")
    else:
        reply.assert_ok()


@pytest.mark.rule("storage.delete-objects.limit-1000")
@pytest.mark.parametrize("count", [1000, 1001], ids=["at-limit", "over-by-one"])
def test_limit_1000(s3, bucket, count):
    """From 2022-07-01: 1000 keys are taken, 1001 are 400 MalformedXML."""
    reply = s3.wire.delete_objects(bucket, [f"k{i}" for i in range(count)], quiet=True)
    if count > 1000:
        reply.assert_error(400, "MalformedXML")
    else:
        reply.assert_ok()


@pytest.mark.rule("storage.delete-objects.per-request-1000")
def test_1000_keys_are_all_deleted(s3, bucket):
    """1000 keys in one request are all reported Deleted; the stored ones among them are gone.

    Thirty of them are written first (both ends and every 50th): enough to see any position
    being skipped, without a thousand PUTs."""
    keys = [f"k{i:04d}" for i in range(1000)]
    stored = {keys[i] for i in range(0, 1000, 50)} | set(keys[:5] + keys[-5:])
    for key in stored:
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, keys).assert_ok()
    assert len(_deleted(reply)) == 1000, f"{len(_deleted(reply))} of 1000 reported Deleted"
    assert _keys(s3, bucket) == [], "keys survived the 1000-key DeleteObjects"


@pytest.mark.rule("storage.delete-objects.xml-declaration")
def test_xml_declaration_is_accepted(s3, bucket):
    """A body starting with `<?xml ...?>` is parsed like one without."""
    s3.wire.put_object(bucket, "d", b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, ["d"], declaration=True).assert_ok()
    assert _deleted(reply) == {"d"}, reply.body[:300]
    s3.wire.get_object(bucket, "d").assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.xml.malformed-400")
def test_object_entry_without_key_is_refused(s3, bucket):
    """An <Object> without <Key>, a required element of DeleteObjects' schema (AWS DeleteObjects
    reference), is a body outside the schema: which 4xx is not stated (S3 says MalformedXML,
    "did not validate against our published schema"), so a 4xx with an error code, never a 5xx;
    and the request is refused whole, so the key listed beside it stays."""
    s3.wire.put_object(bucket, "d", b"x").assert_ok()
    text = (
        '<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>false</Quiet>'
        "<Object><Key>d</Key></Object><Object><VersionId>null</VersionId></Object></Delete>"
    )
    body = text.encode()
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    headers = {"Content-MD5": md5, "Content-Type": "application/xml"}
    reply = s3.wire.request("POST", bucket, query=[("delete", None)], body=body, headers=headers)
    assert 400 <= reply.status < 500, f"an <Object> without <Key>: {reply.describe()}"
    assert reply.error_code and reply.error_code != "InternalError", reply.describe()
    assert _keys(s3, bucket) == ["d"], "a refused DeleteObjects deleted a key"
