"""Credentials are scoped to one account: another account's buckets are neither reachable nor
listed. Needs the target's optional `second_account`; N/A without it."""

from __future__ import annotations

import pytest
from botocore.credentials import Credentials

from conformance.clients.s3_raw import account_host


def _second(s3):
    other = s3.second_account
    if not other:
        pytest.skip("N/A: the target offers no second_account")
    return other, Credentials(other["access_key_id"], other["secret_access_key"])


@pytest.mark.rule("storage.auth.token-one-account")
@pytest.mark.parametrize("operation", ["get-object", "put-object", "list-objects"])
def test_other_accounts_credentials_are_refused(s3, bucket, operation):
    """The second account's credentials on the first account's bucket: 403 AccessDenied."""
    _, creds = _second(s3)
    base = account_host(s3.surface)
    if base is None:
        pytest.skip("N/A: the target declares neither virtual_host nor account_id")
    s3.wire.put_object(bucket, "owned", b"first account").assert_ok()
    host = {"Host": f"{bucket}.{base}"}
    if operation == "get-object":
        # path `/<key>`: the wire client's first path segment (where a bucket goes) is the key
        reply = s3.wire.request("GET", "owned", headers=host, credentials=creds)
    elif operation == "put-object":
        reply = s3.wire.request(
            "PUT", "owned", headers=host, body=b"second account", credentials=creds
        )
    else:
        reply = s3.wire.request(
            "GET", None, None, query=[("list-type", "2")], headers=host, credentials=creds
        )
    reply.assert_error(403, "AccessDenied")
    assert s3.wire.get_object(bucket, "owned").assert_ok().body == b"first account"


@pytest.mark.rule("storage.auth.token-one-account-listing")
def test_listing_shows_only_own_buckets(s3, bucket):
    """ListBuckets with the second account's credentials does not list the first's bucket."""
    _, creds = _second(s3)
    reply = s3.wire.request("GET", credentials=creds).assert_ok()
    listed = [e.text for e in reply.xml.iter("Name")]
    assert bucket not in listed, f"the other account's bucket {bucket} is listed"
    mine = s3.wire.request("GET").assert_ok()
    assert bucket in [e.text for e in mine.xml.iter("Name")], "own bucket not listed"
