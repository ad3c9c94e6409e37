"""Placeholder bucket reads: they answer as a newly created basic bucket does."""

from __future__ import annotations

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
