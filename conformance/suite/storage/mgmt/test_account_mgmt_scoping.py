"""Account scoping on the management API: one account's credentials never reach another's."""

from __future__ import annotations

import pytest


@pytest.mark.rule("storage.mgmt.account-scoped")
@pytest.mark.parametrize("what", ["list", "get"])
def test_other_account_refused(mgmt, s3, bucket, what):
    """The credentials' own account is served; the second account's paths answer 403."""
    other = s3.second_account
    if not other:
        pytest.skip("N/A: target gives no second_account")
    if what == "list":
        mgmt.list_buckets().assert_envelope_ok(200)
        reply = mgmt.list_buckets(account_id=other["account_id"])
    else:
        mgmt.get_bucket(bucket).assert_envelope_ok(200)
        reply = mgmt.get_bucket(bucket, account_id=other["account_id"])
    reply.assert_envelope_error(403)
