"""Placeholder bucket reads: they answer as a newly created basic bucket does."""

from __future__ import annotations

import datetime as dt

import pytest


@pytest.mark.rule("storage.placeholder.get-bucket-acl")
def test_get_bucket_acl_owner_full_control(s3, bucket):
    """GetBucketAcl answers 200 with the owner holding FULL_CONTROL."""
    reply = s3.wire.request("GET", bucket, query=[("acl", None)]).assert_ok()
    root = reply.xml
    assert root is not None and root.tag == "AccessControlPolicy", reply.body[:300]
    owner = root.findtext("Owner/ID")
    assert owner, "no Owner/ID"
    grants = [
        (grant.findtext("Grantee/ID"), grant.findtext("Permission")) for grant in root.iter("Grant")
    ]
    assert (owner, "FULL_CONTROL") in grants, grants
    assert reply.header("content-type") == "application/xml"


@pytest.mark.rule("storage.placeholder.get-bucket-versioning")
def test_get_bucket_versioning_empty(s3, bucket):
    """GetBucketVersioning answers 200 with an empty VersioningConfiguration."""
    reply = s3.wire.request("GET", bucket, query=[("versioning", None)]).assert_ok()
    root = reply.xml
    assert root is not None and root.tag == "VersioningConfiguration", reply.body[:300]
    assert root.findtext("Status") is None, f"Status: {root.findtext('Status')!r}"
    assert root.findtext("MfaDelete") is None


@pytest.mark.rule("storage.placeholder.get-bucket-lifecycle")
def test_get_bucket_lifecycle_none(s3, bucket):
    """GetBucketLifecycleConfiguration without rules answers 404 NoSuchLifecycleConfiguration."""
    reply = s3.wire.request("GET", bucket, query=[("lifecycle", None)])
    reply.assert_error(404, "NoSuchLifecycleConfiguration")


@pytest.mark.rule("storage.placeholder.get-bucket-replication")
def test_get_bucket_replication_none(s3, bucket):
    """GetBucketReplication answers 404 ReplicationConfigurationNotFoundError."""
    reply = s3.wire.request("GET", bucket, query=[("replication", None)])
    reply.assert_error(404, "ReplicationConfigurationNotFoundError")


@pytest.mark.rule("storage.placeholder.get-bucket-tagging")
def test_get_bucket_tagging_none(s3, bucket):
    """GetBucketTagging answers 404 NoSuchTagSet."""
    s3.wire.request("GET", bucket, query=[("tagging", None)]).assert_error(404, "NoSuchTagSet")


@pytest.mark.rule("storage.placeholder.get-object-lock-configuration")
def test_get_object_lock_configuration_none(s3, bucket):
    """GetObjectLockConfiguration answers 404 ObjectLockConfigurationNotFoundError."""
    reply = s3.wire.request("GET", bucket, query=[("object-lock", None)])
    reply.assert_error(404, "ObjectLockConfigurationNotFoundError")


# The placeholders answer as a newly created basic bucket does: for a bucket that does not exist
# there is no such bucket to answer for, and the standard S3 answer (dates.md's error codes) is
# 404 NoSuchBucket, as for every other operation on a missing bucket. Each from its own date.
PLACEHOLDERS_SINCE = {
    "acl": dt.date(2022, 7, 21),
    "versioning": dt.date(2022, 7, 20),
    "replication": dt.date(2022, 7, 20),
    "tagging": dt.date(2022, 7, 20),
    "object-lock": dt.date(2022, 7, 20),
}


@pytest.mark.rule("storage.errors.no-such-bucket")
@pytest.mark.parametrize("subresource", sorted(PLACEHOLDERS_SINCE))
def test_placeholder_on_a_missing_bucket_is_no_such_bucket(s3, names, as_of, subresource):
    """A placeholder read of a bucket that does not exist answers 404 NoSuchBucket, not the
    new bucket's placeholder answer (GetBucketAcl / GetBucketVersioning would say 200)."""
    if as_of < PLACEHOLDERS_SINCE[subresource]:
        pytest.skip(f"N/A: the {subresource} placeholder is offered from "
                    f"{PLACEHOLDERS_SINCE[subresource]}")  # fmt: skip
    reply = s3.wire.request("GET", names.bucket(), query=[(subresource, None)])
    reply.assert_error(404, "NoSuchBucket")
