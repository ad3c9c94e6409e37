"""Config audit logs (reference-only listing): each configuration change, time, actor, change."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.audit-logs.listed-reference")
def test_changes_listed(s3, mgmt, names, as_of):
    """Create, CORS, migration and delete of a bucket are listed in order, with time and actor;
    a listing of one bucket holds none of another bucket's changes (one made just before)."""
    name, other = names.bucket(), names.bucket()
    s3.wire.create_bucket(other).assert_ok()
    s3.wire.request("DELETE", other).assert_ok()
    s3.wire.create_bucket(name).assert_ok()
    s3.boto.put_bucket_cors(Bucket=name, CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": ["https://example.com"], "AllowedMethods": ["GET"]}]})  # fmt: skip
    s3.boto.delete_bucket_cors(Bucket=name)
    s3.wire.request("DELETE", name).assert_ok()
    entries = mgmt.audit_log(bucket=name).assert_envelope_ok(200)
    actions = [entry["action"] for entry in entries]
    assert actions == ["CreateBucket", "PutBucketCors", "DeleteBucketCors", "DeleteBucket"], entries
    for entry in entries:
        assert entry["bucket"] == name, entry
        assert entry["time"] and entry["actor"], entry
    assert entries[1]["change"], "the CORS change is not recorded"
