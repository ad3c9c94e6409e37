"""A custom domain's `enabled` switch: public access to the bucket follows it."""

from __future__ import annotations

import time

import pytest

from conformance.clients.public import CustomDomains, PublicClient, domain_for

BODY = b"served while enabled"
SETTLE_S = 10.0  # how long a switch may take to reach the public entrypoint
STEP_S = 0.5


def _served(public: PublicClient, key: str) -> bool:
    reply = public.get(key)
    return reply.status == 200 and reply.body == BODY


def _settles(public: PublicClient, key: str, served: bool) -> bool:
    """Whether the object's public answer reaches `served` within SETTLE_S: a switch of the
    management API may take a moment to reach the edge, which is not a failure."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        if _served(public, key) is served:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(STEP_S)


@pytest.mark.rule("storage.public.disabled-domain-not-served")
def test_disabled_domain_does_not_serve_and_enabled_again_does(s3, public, target, names):
    """PUT .../domains/custom/<domain> {"enabled": false}: the object is no longer served there
    (any answer but a 200 with its bytes); {"enabled": true}: it is served again."""
    key = names.key(".txt")
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY)
    assert _served(public, key), f"not served while enabled: {public.get(key).describe()}"
    domains = CustomDomains(target.surface("mgmt"))
    domains.update(public.bucket, public.domain, False).assert_envelope_ok()
    try:
        assert _settles(public, key, served=False), (
            f"the domain was updated to enabled false and still serves the object after "
            f"{SETTLE_S:g} s: {public.get(key).describe()}"
        )
    finally:
        switched_back = domains.update(public.bucket, public.domain, True)
    switched_back.assert_envelope_ok()
    assert _settles(public, key, served=True), (
        f"enabled true again, the object is not served after {SETTLE_S:g} s: "
        f"{public.get(key).describe()}"
    )


@pytest.mark.rule("storage.public.disabled-domain-not-served")
def test_domain_created_disabled_does_not_serve_until_enabled(s3, public, target, names):
    """A second custom domain linked to the bucket with enabled false at its creation does not
    serve the object (while the first, enabled, does); updated to enabled true it does."""
    key = names.key(".txt")
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY)
    domains = CustomDomains(target.surface("mgmt"))
    domain = domain_for(public.bucket + "-off")  # the run prefix first, as every linked domain
    created = domains.create(public.bucket, domain, enabled=False)
    try:
        created.assert_envelope_ok()
        second = PublicClient(public.url, domain, public.bucket)
        assert _served(public, key), f"not served while enabled: {public.get(key).describe()}"
        assert _settles(second, key, served=False), (
            f"a domain created with enabled false serves the object: {second.get(key).describe()}"
        )
        domains.update(public.bucket, domain, True).assert_envelope_ok()
        assert _settles(second, key, served=True), (
            f"enabled true, the object is not served after {SETTLE_S:g} s: "
            f"{second.get(key).describe()}"
        )
    finally:
        domains.delete(public.bucket, domain)


@pytest.mark.rule("storage.mgmt.custom-domain.other-bucket")
def test_domain_is_not_reached_through_another_buckets_path(s3, public, target, names):
    """The public bucket's domain, asked for under another bucket of the account: GET, PUT and
    DELETE there answer a 4xx; the domain still serves its own bucket's object afterwards."""
    key = names.key(".txt")
    s3.boto.put_object(Bucket=public.bucket, Key=key, Body=BODY)
    other = names.bucket()
    s3.boto.create_bucket(Bucket=other)
    domains = CustomDomains(target.surface("mgmt"))
    try:
        path = domains.path(other, public.domain)
        answers = {
            "GET": domains.request("GET", path),
            "PUT": domains.request("PUT", path, {"enabled": False}),
            "DELETE": domains.request("DELETE", path),
        }
        for method, reply in answers.items():
            assert 400 <= reply.status < 500, f"{method} under bucket {other}: {reply.describe()}"
        assert _settles(public, key, served=True), (
            f"the domain no longer serves its bucket: {public.get(key).describe()}"
        )
    finally:
        s3.boto.delete_bucket(Bucket=other)
