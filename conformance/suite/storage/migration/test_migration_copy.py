"""Migration (sippy) at work: a miss is fetched from the source bucket, answered and stored."""

from __future__ import annotations

import hashlib

import pytest

from conformance.suite.setup_check import require_ok
from conformance.suite.storage.migration.support import config_for, source_bucket


def _fetch_then_lose_source(s3, mgmt, bucket, names, migration_source, as_of):
    """Configure migration, read a key only the source has, then delete it at the source and
    turn migration off: (body, first read, later read, a read of a key nowhere)."""
    name, key = names.bucket(), names.key(".txt")
    body = b"migrated body " * 1000
    with source_bucket(migration_source, name) as source:
        source.put_object(Bucket=name, Key=key, Body=body, ContentType="text/plain")
        mgmt.put_sippy(bucket, config_for(as_of, migration_source, name)).assert_envelope_ok()
        first = s3.wire.get_object(bucket, key)
        source.delete_object(Bucket=name, Key=key)
    mgmt.delete_sippy(bucket).assert_envelope_ok()
    return body, first, s3.wire.get_object(bucket, key), s3.wire.get_object(bucket, names.key())


@pytest.mark.rule("storage.migration.copies-objects")
def test_miss_fetched_from_source(s3, mgmt, bucket, names, migration_source, as_of):
    """GetObject of a key only the source has answers it; a key nowhere is still NoSuchKey."""
    body, first, _later, nowhere = _fetch_then_lose_source(
        s3, mgmt, bucket, names, migration_source, as_of
    )
    assert first.assert_ok().body == body, f"first read: {len(first.body)} bytes"
    nowhere.assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.migration.copies-objects")
def test_large_miss_fetched_whole(s3, mgmt, bucket, names, migration_source, as_of):
    """A key only the source has, of 200 KiB (a size a target may store otherwise than small
    bodies: a file, not a database row), is answered whole by the read that fetches it and by
    the next one, which the bucket serves itself."""
    name, key = names.bucket(), names.key(".bin")
    body = hashlib.sha256(b"large migrated body").digest() * 6400
    with source_bucket(migration_source, name) as source:
        source.put_object(Bucket=name, Key=key, Body=body)
        mgmt.put_sippy(bucket, config_for(as_of, migration_source, name)).assert_envelope_ok()
        first = s3.wire.get_object(bucket, key)
    mgmt.delete_sippy(bucket).assert_envelope_ok()
    got = first.assert_ok().body
    assert got == body, f"the fetching read: {len(got)} of {len(body)} bytes"
    again = s3.wire.get_object(bucket, key).assert_ok().body
    assert again == body, f"the read after: {len(again)} of {len(body)} bytes"


@pytest.mark.rule("storage.migration.copies-objects")
def test_key_missing_at_source_is_no_such_key(s3, mgmt, bucket, names, migration_source, as_of):
    """With migration on, a key neither the bucket nor the source holds is still NoSuchKey.

    The source answers such a read with its own 404: an implementer who lets that refusal
    escape the miss hook answers 5xx where the bucket's plain miss is due.
    """
    name, key = names.bucket(), names.key()
    with source_bucket(migration_source, name) as source:
        source.put_object(Bucket=name, Key=names.key(), Body=b"another key of the source")
        mgmt.put_sippy(bucket, config_for(as_of, migration_source, name)).assert_envelope_ok()
        try:
            got = s3.wire.get_object(bucket, key)
            head = s3.wire.request("HEAD", bucket, key)
        finally:
            mgmt.delete_sippy(bucket).assert_envelope_ok()
    got.assert_error(404, "NoSuchKey")
    assert head.status == 404, f"HeadObject of a key nowhere answered {head.describe()}"


@pytest.mark.rule("storage.migration.stored-after-fetch")
def test_fetched_object_is_stored(s3, mgmt, bucket, names, migration_source, as_of):
    """Once fetched, the object is served from the bucket after the source lost it."""
    body, first, later, _nowhere = _fetch_then_lose_source(
        s3, mgmt, bucket, names, migration_source, as_of
    )
    require_ok(first, "the first read through migration (copies-objects' rule)")
    assert later.assert_ok().body == body, "the fetched object was not stored in the bucket"


# --- folded from test_migration_checked.py ---
# Migration (sippy) checked beyond "the bytes came back": metadata, the local object winning.
#
# An implementer may store the fetched bytes under a default Content-Type and without the
# source's user metadata, or ask the source before looking at the bucket (so a local object is
# shadowed by the source's older copy).


@pytest.mark.rule("storage.migration.copies-objects", "storage.migration.stored-after-fetch")
def test_fetched_object_keeps_type_metadata_and_md5(
    s3, mgmt, bucket, names, migration_source, as_of
):
    """The migrated object has the source's Content-Type, user metadata and the MD5 ETag."""
    name, key = names.bucket(), names.key()
    body = b"migrated with its metadata " * 100
    with source_bucket(migration_source, name) as source:
        source.put_object(
            Bucket=name, Key=key, Body=body, ContentType="text/x-migrated",
            Metadata={"origin": "source"},
        )  # fmt: skip
        mgmt.put_sippy(bucket, config_for(as_of, migration_source, name)).assert_envelope_ok()
        first = s3.wire.get_object(bucket, key).assert_ok()
        assert first.body == body
    mgmt.delete_sippy(bucket).assert_envelope_ok()
    head = s3.wire.request("HEAD", bucket, key).assert_ok()
    assert head.header("content-type") == "text/x-migrated", dict(head.headers)
    assert head.header(s3.wire.vendor("meta-origin")) == "source", dict(head.headers)
    assert head.header("etag") == f'"{hashlib.md5(body).hexdigest()}"'


@pytest.mark.rule("storage.migration.copies-objects")
def test_local_object_wins_over_the_source(s3, mgmt, bucket, names, migration_source, as_of):
    """A key the bucket already holds is served from the bucket, not fetched again."""
    name, key = names.bucket(), names.key()
    with source_bucket(migration_source, name) as source:
        source.put_object(Bucket=name, Key=key, Body=b"the source's older copy")
        s3.wire.put_object(bucket, key, b"the bucket's own copy").assert_ok()
        mgmt.put_sippy(bucket, config_for(as_of, migration_source, name)).assert_envelope_ok()
        try:
            got = s3.wire.get_object(bucket, key).assert_ok()
            assert got.body == b"the bucket's own copy"
        finally:
            mgmt.delete_sippy(bucket).assert_envelope_ok()
