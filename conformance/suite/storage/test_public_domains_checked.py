"""Public reads resolve the custom domain from Host as HTTP defines it, and only while linked.

An implementer may compare Host case-sensitively or with its port, keep serving a domain after
it is unlinked, or serve a bucket's key under another bucket's domain.
"""

from __future__ import annotations

import pytest

from conformance.clients.public import CustomDomains, PublicClient

BODY = b"served on the custom domain"


@pytest.fixture
def stored(s3, public, names):
    key = names.key(".txt")
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY, ContentType="text/plain")
    return key


@pytest.mark.rule("storage.public.get-object")
@pytest.mark.parametrize("form", ["upper", "port", "trailing-dot"])
def test_host_matched_case_insensitively_and_without_port(public, stored, form):
    """`Host: DOMAIN`, `Host: domain:port` and `Host: domain.` name the same domain."""
    host = {
        "upper": public.domain.upper(),
        "port": public.domain + ":" + (public.url.rsplit(":", 1)[-1].split("/")[0] or "80"),
        "trailing-dot": public.domain + ".",
    }[form]
    other = PublicClient(public.url, host, public.bucket, public.tls)
    reply = other.get(stored)
    assert reply.status == 200 and reply.body == BODY, reply.describe()


@pytest.mark.rule("storage.public.get-object")
def test_unlinked_domain_serves_nothing(s3, target, public, stored, names):
    """Once the domain is removed through the management API, its reads are refused."""
    assert public.get(stored).status == 200
    CustomDomains(target.surface("mgmt")).delete(public.bucket, public.domain)
    reply = public.get(stored)
    assert reply.status >= 400 and reply.body != BODY, reply.describe()


@pytest.mark.rule("storage.public.get-object")
def test_domain_serves_its_own_bucket_only(s3, public, names, bucket):
    """A key that exists only in another bucket is 404 on this bucket's domain."""
    other = names.bucket()
    s3.wire.create_bucket(other).assert_ok()
    try:
        key = names.key(".txt")
        s3.wire.put_object(other, key, b"elsewhere").assert_ok()
        assert public.get(key).status == 404
    finally:
        s3.delete_bucket_recursive(other)
