"""`x-vendor-acl: public-read` on PutObject: accepted, and it opens nothing."""

from __future__ import annotations

import pytest

from conformance.suite.setup_check import require_ok


@pytest.mark.rule("storage.put-object.acl-public-read")
def test_public_read_acl_is_accepted(s3, bucket, names):
    """PutObject with the public-read canned ACL succeeds and stores the object."""
    key = names.key()
    header = {s3.wire.vendor("acl"): "public-read"}
    s3.wire.put_object(bucket, key, b"acl", headers=header).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"acl"


@pytest.mark.rule("storage.put-object.acl-public-read-no-effect")
def test_public_read_acl_does_not_open_the_object(s3, bucket, names):
    """After a public-read PutObject, an unsigned GetObject is still refused. (Which status
    and code an unsigned request gets is storage.auth.unsigned-refused's rule.)"""
    key = names.key()
    header = {s3.wire.vendor("acl"): "public-read"}
    require_ok(s3.wire.put_object(bucket, key, b"acl", headers=header), "the public-read PutObject")
    reply = s3.wire.request("GET", bucket, key, sign="none")
    assert 400 <= reply.status < 500 and reply.body != b"acl", f"object opened: {reply.describe()}"
