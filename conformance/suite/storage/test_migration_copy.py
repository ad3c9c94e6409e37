"""Migration (sippy) at work: a miss is fetched from the source bucket, answered and stored."""

from __future__ import annotations

import pytest

from conformance.suite.storage.sippy_support import config_for, source_bucket


@pytest.mark.rule("storage.migration.copies-objects", "storage.migration.stored-after-fetch")
def test_miss_fetched_then_local(s3, mgmt, bucket, names, migration_source, as_of):
    """GetObject of a key only the source has answers it; once the source lost it, still served."""
    name, key = names.bucket(), names.key(".txt")
    body = b"migrated body " * 1000
    with source_bucket(migration_source, name) as source:
        source.put_object(Bucket=name, Key=key, Body=body, ContentType="text/plain")
        mgmt.put_sippy(bucket, config_for(as_of, migration_source, name)).assert_envelope_ok()
        first = s3.wire.get_object(bucket, key).assert_ok()
        assert first.body == body, f"first read: {len(first.body)} bytes"
        source.delete_object(Bucket=name, Key=key)
    mgmt.delete_sippy(bucket).assert_envelope_ok()
    later = s3.wire.get_object(bucket, key).assert_ok()
    assert later.body == body, "the fetched object was not stored in the bucket"
    s3.wire.get_object(bucket, names.key()).assert_error(404, "NoSuchKey")
