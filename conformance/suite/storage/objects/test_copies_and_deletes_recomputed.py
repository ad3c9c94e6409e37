"""Copies and deletes checked against what the suite sent, not only "it answered 200".

An implementer may copy the right bytes under a wrong ETag, lose the metadata the default
`COPY` directive keeps, not decode a URL-encoded copy source, copy from the destination onto
itself, or report keys Deleted that it kept (and the other way round). Each case recomputes
the expected answer from the bytes, names and keys it sent.
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote

import pytest

from conformance.clients import s3_multipart as mp
from conformance.suite.setup_check import require

BODY = b"copied bytes, recomputed by the suite " * 40


def _md5(body: bytes) -> str:
    return f'"{hashlib.md5(body).hexdigest()}"'


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_etag_is_md5_of_the_copied_bytes(s3, bucket, names):
    """The copy's result ETag and its HeadObject ETag are the MD5 of the source bytes; the
    source is unchanged."""
    source, target = names.key(), names.key()
    s3.wire.put_object(bucket, source, BODY).assert_ok()
    reply = mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source}").assert_ok()
    root = reply.xml
    assert root is not None
    assert root.findtext("ETag") == _md5(BODY), reply.body[:300]
    assert root.findtext("LastModified"), "CopyObjectResult has no LastModified"
    head = s3.wire.request("HEAD", bucket, target).assert_ok()
    assert head.header("etag") == _md5(BODY)
    assert head.header("content-length") == str(len(BODY))
    assert s3.wire.get_object(bucket, source).assert_ok().body == BODY


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_keeps_content_type_and_user_metadata(s3, bucket, names):
    """Without a directive (COPY) the copy keeps the source's Content-Type and user metadata."""
    source, target = names.key(), names.key()
    meta = s3.wire.vendor("meta-colour")
    headers = {"Content-Type": "text/x-conformance", meta: "teal"}
    s3.wire.put_object(bucket, source, BODY, headers=headers).assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source}").assert_ok()
    head = s3.wire.request("HEAD", bucket, target).assert_ok()
    assert head.header("content-type") == "text/x-conformance"
    assert head.header(meta) == "teal", dict(head.headers)


@pytest.mark.rule("storage.copy-object.leading-slash", "storage.copy-object.round-trip")
def test_copy_source_is_url_decoded(s3, bucket, names):
    """A URL-encoded copy source (space, `+`, `é`) names the decoded key."""
    source = names.key() + "/a b+é"
    target = names.key()
    s3.wire.put_object(bucket, source, BODY).assert_ok()
    encoded = f"/{bucket}/{quote(source, safe='/')}"
    mp.copy_object(s3.wire, bucket, target, encoded).assert_ok()
    assert s3.wire.get_object(bucket, target).assert_ok().body == BODY


@pytest.mark.rule("storage.copy-object.round-trip")
def test_copy_overwrites_an_existing_destination(s3, bucket, names):
    """Copying onto an existing key replaces its bytes and ETag."""
    source, target = names.key(), names.key()
    s3.wire.put_object(bucket, source, BODY).assert_ok()
    s3.wire.put_object(bucket, target, b"older destination").assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source}").assert_ok()
    got = s3.wire.get_object(bucket, target).assert_ok()
    assert got.body == BODY and got.header("etag") == _md5(BODY)


@pytest.mark.rule("storage.copy-object.multipart-source")
def test_copy_of_two_part_object_has_all_bytes(s3, bucket, names):
    """A two-part multipart object copies whole (both parts, in order)."""
    key, target = names.key(), names.key()
    first, tail = b"\x05" * (5 * 1024 * 1024), b"the tail part"
    upload = mp.start(s3.wire, bucket, key)
    etags = [
        mp.etag(mp.upload_part(s3.wire, bucket, key, upload, n, body))
        for n, body in ((1, first), (2, tail))
    ]
    mp.complete(s3.wire, bucket, key, upload, [(1, etags[0]), (2, etags[1])]).assert_ok()
    mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{key}").assert_ok()
    got = s3.wire.get_object(bucket, target).assert_ok().body
    assert len(got) == len(first) + len(tail) and got == first + tail


def _keys(s3, bucket):
    root = s3.wire.list_objects_v2(bucket).assert_ok().xml
    return sorted(e.text for e in root.iter() if e.tag.rsplit("}", 1)[-1] == "Key")


def _reported(reply, tag):
    root = reply.xml
    assert root is not None, reply.body[:300]
    return sorted(e.findtext("Key") or "" for e in root.iter() if e.tag.rsplit("}", 1)[-1] == tag)


@pytest.mark.rule("storage.delete-objects.deletes-listed")
def test_delete_objects_reports_exactly_the_listed_keys(s3, bucket):
    """Listed keys (one missing) are reported Deleted, exactly; the others stay, no Error."""
    for key in ("d1", "d2", "d3", "keep1", "keep2"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, ["d1", "d3", "never-written"]).assert_ok()
    assert _reported(reply, "Deleted") == ["d1", "d3", "never-written"], reply.body[:400]
    assert _reported(reply, "Error") == []
    assert _keys(s3, bucket) == ["d2", "keep1", "keep2"]


@pytest.mark.rule("storage.delete-objects.deletes-listed")
def test_delete_objects_quiet_deletes(s3, bucket):
    """Quiet mode still deletes the listed keys, and only them, with no Error. (What the
    answer leaves out in Quiet mode is the quiet rule's, below.)"""
    for key in ("q1", "q2", "keep"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, ["q1", "q2"], quiet=True).assert_ok()
    assert _reported(reply, "Error") == [], reply.body[:400]
    assert _keys(s3, bucket) == ["keep"]


@pytest.mark.rule("storage.delete-objects.quiet")
def test_delete_objects_quiet_reports_no_deleted_entry(s3, bucket):
    """Quiet mode reports no Deleted entries for keys it deleted."""
    for key in ("q1", "q2", "keep"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, ["q1", "q2"], quiet=True).assert_ok()
    assert _reported(reply, "Deleted") == [], reply.body[:400]
    assert _keys(s3, bucket) == ["keep"]


@pytest.mark.rule("storage.delete-object.removes")
def test_delete_object_removes_only_that_key(s3, bucket):
    """DeleteObject removes its key only: a key sharing its prefix stays."""
    for key in ("dir/a", "dir/ab", "dir/a/b"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.request("DELETE", bucket, "dir/a")
    assert reply.status in (200, 204), reply.status
    assert _keys(s3, bucket) == ["dir/a/b", "dir/ab"]
    s3.wire.get_object(bucket, "dir/a").assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.delete-objects.deletes-listed")
def test_delete_objects_goes_on_after_a_key_it_cannot_take(s3, bucket):
    """A key over 1024 bytes listed first does not stop the keys after it: either the whole
    request is refused (400, nothing deleted) or every valid key (one of exactly 1024 bytes
    among them) is deleted and reported, and the over-long one is not reported deleted."""
    at_limit = "m" * 1024
    for key in ("after1", "after2"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    written = s3.wire.put_object(bucket, at_limit, b"x")
    require(
        written.status < 300,
        "a 1024-byte key could not be written (taking it is storage.put-object.key-too-long's "
        f"rule): {written.status} {written.error_code}",
    )
    over = "k" * 1025
    # A target that takes a 1025-byte key on PutObject breaks storage.put-object.key-too-long;
    # for it the key is an ordinary one here, and reporting it Deleted is no fault of this rule.
    taken = s3.wire.put_object(bucket, over, b"x")
    reply = s3.wire.delete_objects(bucket, [over, "after1", "after2", at_limit])
    if reply.status == 400:
        kept = ["after1", "after2", at_limit] + ([over] if taken.status < 300 else [])
        assert _keys(s3, bucket) == sorted(kept)
        return
    reply.assert_ok()
    deleted = set(_reported(reply, "Deleted"))
    assert {"after1", "after2", at_limit} <= deleted, reply.body[:400]
    if taken.status >= 300:
        assert over not in deleted, "a key over 1024 bytes was reported deleted"
    assert _keys(s3, bucket) == []
