"""Custom domains are capped per bucket and per account (issue 26, fresh adversarial pass).

The registry (`<data_dir>/public/domains.json`) is one document rewritten whole on every change;
on main any number of domains could be linked, so each change cost ever more. Now a bucket has
at most `custom_domains_max_per_bucket` (100, the provider's documented R2 limit) and an account
`custom_domains_max_per_account` (1,000) domains; one more is 400 `10073`. Deleting a domain
or its bucket makes room.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from reliability.refproc import RefProcess, checked_reference

from conformance.clients.public import CustomDomains
from conformance.clients.rules_api import Reply

PER_BUCKET = 100


def _domains(ref: RefProcess) -> CustomDomains:
    return CustomDomains(ref.surface("mgmt"))


def _refused(reply: Reply) -> None:
    error = reply.assert_envelope_error(400, code=10073)
    assert "too many custom domains" in error["message"].lower(), error


@pytest.mark.slow  # >3 s on its own: out of the fast tier (docs/testing.md)
def test_domains_per_bucket_are_capped(ref: RefProcess) -> None:
    bucket = "domain-cap"
    ref.wire().create_bucket(bucket)
    api = _domains(ref)
    for n in range(PER_BUCKET):
        api.create(bucket, f"d{n}.cap.example").assert_envelope_ok()
    _refused(api.create(bucket, f"d{PER_BUCKET}.cap.example"))
    listed = api.list(bucket).assert_envelope_ok()["domains"]
    assert len(listed) == PER_BUCKET
    size = (ref.data_dir / "public" / "domains.json").stat().st_size
    api.delete(bucket, "d0.cap.example").assert_envelope_ok()
    api.create(bucket, f"d{PER_BUCKET}.cap.example").assert_envelope_ok()
    _refused(api.create(bucket, "one-more.cap.example"))
    assert (ref.data_dir / "public" / "domains.json").stat().st_size <= size + 200
    ref.wire().request("DELETE", bucket)  # its domains go with it: the account has room again
    ref.wire().create_bucket(bucket)
    assert api.list(bucket).assert_envelope_ok()["domains"] == []


@pytest.fixture(scope="module")
def small_account(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    profile = {"custom_domains_max_per_account": 5, "custom_domains_max_per_bucket": 3}
    yield from checked_reference(tmp_path_factory, "domain-cap", profile)


def test_domains_per_account_are_capped(small_account: RefProcess) -> None:
    """Per bucket and per account, counted over every bucket of the account."""
    api = _domains(small_account)
    for bucket in ("cap-a", "cap-b"):
        small_account.wire().create_bucket(bucket)
    for n in range(3):
        api.create("cap-a", f"a{n}.cap.example").assert_envelope_ok()
    _refused(api.create("cap-a", "a3.cap.example"))
    for n in range(2):
        api.create("cap-b", f"b{n}.cap.example").assert_envelope_ok()
    _refused(api.create("cap-b", "b2.cap.example"))  # 5 in the account, 2 in this bucket
    api.delete("cap-a", "a0.cap.example").assert_envelope_ok()
    api.create("cap-b", "b2.cap.example").assert_envelope_ok()
