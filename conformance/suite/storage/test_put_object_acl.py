"""`x-vendor-acl: public-read` on PutObject: accepted, and it opens nothing."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.put-object.acl-public-read")
def test_public_read_acl_is_accepted(s3, bucket, names):
    """PutObject with the public-read canned ACL succeeds and stores the object."""
    key = names.key()
    header = {s3.wire.vendor("acl"): "public-read"}
    s3.wire.put_object(bucket, key, b"acl", headers=header).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"acl"


@pytest.mark.rule("storage.put-object.acl-public-read-no-effect")
def test_public_read_acl_does_not_open_the_object(s3, bucket, names):
    """After a public-read PutObject, an unsigned GetObject is still refused (a 4xx, no bytes).

    The rule is "no effect": the code of the refusal is storage.auth.unsigned-refused's business.
    """
    key = names.key()
    header = {s3.wire.vendor("acl"): "public-read"}
    s3.wire.put_object(bucket, key, b"acl", headers=header).assert_ok()
    reply = s3.wire.request("GET", bucket, key, sign="none")
    assert reply.status in (401, 403), f"unsigned GET after public-read: {reply.status}"
    assert b"acl" not in reply.body, "the unsigned GET served the object"
