"""DeleteObject removes exactly the key it names, spaces included; DeleteObjects reports
exactly the keys it deleted."""

from __future__ import annotations

import pytest

from conformance.suite.setup_check import require


@pytest.mark.rule("storage.delete-objects.quiet-boolean-forms")
@pytest.mark.parametrize(("form", "quiet"), [("1", True), ("0", False)])
def test_delete_objects_quiet_in_its_numeric_form(s3, bucket, form, quiet):
    """<Quiet> is an xs:boolean (the S3 API's DeleteObjects schema), whose lexical forms are
    `true`, `false`, `1` and `0`: `<Quiet>1</Quiet>` leaves the deleted keys out of the answer
    as `true` does, and `<Quiet>0</Quiet>` lists them as `false` does. Both delete the keys."""
    for key in ("q1", "q2", "keep"):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.delete_objects(bucket, ["q1", "q2"], quiet=form).assert_ok()
    deleted = _reported(reply, "Deleted")
    assert deleted == ([] if quiet else ["q1", "q2"]), f"<Quiet>{form}</Quiet>: {reply.body[:400]}"
    assert _reported(reply, "Error") == [], reply.body[:400]
    assert _keys(s3, bucket) == ["keep"]


@pytest.mark.rule("storage.delete-object.removes")
def test_delete_object_removes_it(s3, bucket, names):
    """After DeleteObject the key reads as 404 NoSuchKey and is no longer listed."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"x").assert_ok()
    reply = s3.wire.request("DELETE", bucket, key)
    assert reply.status in (200, 204), f"DeleteObject: status {reply.status}"
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")
    listed = s3.wire.list_objects_v2(bucket).assert_ok()
    assert key not in [e.text for e in listed.xml.iter("Key")], "the deleted key is listed"


@pytest.mark.rule("storage.delete-object.keys-not-trimmed")
@pytest.mark.parametrize("spaced", [" k", "k ", " k "], ids=["leading", "trailing", "both"])
def test_delete_object_keeps_spaces(s3, bucket, spaced):
    """Deleting `spaced` removes that key and leaves the trimmed key `k` in place."""
    s3.wire.put_object(bucket, "k", b"trimmed").assert_ok()
    s3.wire.put_object(bucket, spaced, b"spaced").assert_ok()
    reply = s3.wire.request("DELETE", bucket, spaced)
    assert reply.status in (200, 204), f"DeleteObject {spaced!r}: status {reply.status}"
    assert s3.wire.get_object(bucket, "k").status == 200, "the trimmed key was deleted"
    s3.wire.get_object(bucket, spaced).assert_error(404, "NoSuchKey")


# --- folded from test_copies_and_deletes_checked.py (its delete half) ---
# Deletes checked against what the suite sent, not only "it answered 200": an implementer may
# report keys Deleted that it kept (and the other way round). Each case recomputes the expected
# answer from the keys it sent.


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
