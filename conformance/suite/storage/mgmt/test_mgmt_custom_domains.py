"""Custom domains of a bucket on the management API: attach, list, read, remove.

The spec names custom domains as the way public buckets are reached; the provider's R2 API
documents the calls (`/accounts/{account_id}/r2/buckets/{bucket_name}/domains/custom`):
Attach Custom Domain To Bucket (POST, answering the domain and whether the bucket is publicly
accessible there), List Custom Domains of Bucket (GET, `domains`: each with its domain and
enabled), Get Custom Domain Settings (GET .../{domain}) and Remove Custom Domain From Bucket
(DELETE .../{domain}, answering the removed domain's name).

Elsewhere the suite attaches a domain only in the `public` fixture's setup, where a target
whose attach is broken yields a setup ERROR (the rule not checked) and never a FAIL. Here every
call is the check, on the test's own bucket. The domain is the one the suite always links
(`<bucket>.public.example`, the run prefix first, which `conformance recover` unlinks after a
killed run); like the `public` fixture, the test links none unless the target offers both the
public and mgmt surfaces (recover unlinks only then).

A real account links only domains of a zone it owns, named by `zoneId` (R2's Attach Custom
Domain): a refused attach (4xx) of the suite's made-up domain is NOT-CHECKED, never a FAIL; a
5xx, or an attach that succeeds but is not read back, listed or removed as documented, FAILs.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.public import CustomDomains, domain_for
from conformance.model.targets import REFERENCE
from conformance.plugin.applicability import NA_PREFIX
from conformance.suite.setup_check import not_checked


def _named(result: Any, domain: str) -> bool:
    return isinstance(result, dict) and str(result.get("domain", "")).lower() == domain


def _listed(domains: CustomDomains, bucket: str) -> list[dict[str, Any]]:
    """The bucket's custom domains, as List Custom Domains answers them (asserted ok)."""
    reply = domains.list(bucket)
    result = reply.assert_envelope_ok(200)
    found = result.get("domains") if isinstance(result, dict) else None
    assert isinstance(found, list), f"no domains list: {reply.describe()}"
    return [item for item in found if isinstance(item, dict)]


def _attach(bucket: str, target: Any) -> tuple[CustomDomains, str, Any]:
    """Attach the suite's domain for `bucket`: N/A without a public surface, NOT-CHECKED when
    the target refuses the made-up domain (a real account links only domains of its zones)."""
    if not target.offers("public"):
        pytest.skip(f"{NA_PREFIX}surface public not offered by target {target.name}")
    domains = CustomDomains(target.surface("mgmt"))
    domain = domain_for(bucket)
    attached = domains.create(bucket, domain)
    if 400 <= attached.status < 500:
        not_checked(f"the target refused to link {domain} (a real account links only domains "
                    f"of a zone it owns): {attached.describe()}")  # fmt: skip
    return domains, domain, attached


@pytest.mark.rule("storage.mgmt.custom-domain.attach-list-remove")
def test_attach_list_get_remove(s3, bucket, target):
    """POST attaches the domain enabled (the answer names it, enabled true); the bucket's list
    holds it enabled, its GET reads it back; DELETE answers its name, the list drops it and its
    GET answers a 4xx (the status is not public: a removed domain is not read back)."""
    domains, domain, attached = _attach(bucket, target)
    removed = None
    try:
        made = attached.assert_envelope_ok(200)
        assert _named(made, domain), f"attach does not answer the domain: {attached.describe()}"
        assert made.get("enabled") is True, f"attached enabled, answered: {attached.describe()}"

        listed = [item for item in _listed(domains, bucket) if _named(item, domain)]
        assert len(listed) == 1, f"the list holds the domain {len(listed)} times: {listed}"
        assert listed[0].get("enabled") is True, f"listed not enabled: {listed[0]}"

        got = domains.request("GET", domains.path(bucket, domain))
        assert _named(got.assert_envelope_ok(200), domain), got.describe()

        removed = domains.delete(bucket, domain)
        assert _named(removed.assert_envelope_ok(200), domain), removed.describe()
        left = [item for item in _listed(domains, bucket) if _named(item, domain)]
        assert left == [], f"the removed domain is still listed: {left}"
        gone = domains.request("GET", domains.path(bucket, domain))
        assert 400 <= gone.status < 500, f"GET of the removed domain: {gone.describe()}"
    finally:
        if removed is None or removed.status >= 300:
            domains.delete(bucket, domain)


@pytest.mark.rule("storage.mgmt.custom-domain.reference-links-suite-domain")
def test_reference_links_the_suites_domain(s3, bucket, target):
    """Reference-only: the bundled reference serves the zone the suite configured it with, so a
    refused attach of the suite's domain (NOT-CHECKED elsewhere) is its defect; removal too."""
    if target.name != REFERENCE:
        pytest.skip(f"{NA_PREFIX}reference-only rule on target {target.name!r}")
    if not target.offers("public"):
        pytest.skip(f"{NA_PREFIX}surface public not offered by target {target.name}")
    domains = CustomDomains(target.surface("mgmt"))
    domain = domain_for(bucket)
    attached = domains.create(bucket, domain)
    removed = None
    try:
        assert _named(attached.assert_envelope_ok(200), domain), attached.describe()
        removed = domains.delete(bucket, domain)
        assert _named(removed.assert_envelope_ok(200), domain), removed.describe()
    finally:
        if removed is None or removed.status >= 300:
            domains.delete(bucket, domain)


@pytest.mark.rule("storage.mgmt.custom-domain.edit-keeps-min-tls")
def test_edit_without_min_tls_keeps_it(s3, bucket, target):
    """Edit Custom Domain Settings (PUT .../{domain}) sets minTLS 1.2; a later edit that names
    only enabled leaves it 1.2 (the R2 API: minTLS "If not set, defaults to previous value"),
    as Get Custom Domain Settings reads it back. A refused attach of the suite's made-up domain
    is NOT-CHECKED, as above."""
    domains, domain, attached = _attach(bucket, target)
    path = domains.path(bucket, domain)
    try:
        attached.assert_envelope_ok(200)
        domains.request("PUT", path, {"enabled": True, "minTLS": "1.2"}).assert_envelope_ok(200)
        domains.request("PUT", path, {"enabled": False}).assert_envelope_ok(200)
        got = domains.request("GET", path)
        read = got.assert_envelope_ok(200)
        assert isinstance(read, dict) and read.get("minTLS") == "1.2", (
            f"minTLS set to 1.2, then an edit without minTLS: {got.describe()}"
        )
    finally:
        domains.delete(bucket, domain)
