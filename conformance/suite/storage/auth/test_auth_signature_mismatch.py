"""Requests whose SigV4 signature does not match are refused."""

from __future__ import annotations

import pytest
from botocore.credentials import Credentials


def _wrong_secret(s3, bucket):
    creds = Credentials(s3.wire.credentials.access_key, "not-the-secret-" + "0" * 25)
    return s3.wire.prepare("GET", bucket, query=[("list-type", "2")], credentials=creds)


def _query_changed_after_signing(s3, bucket):
    prepared = s3.wire.prepare("GET", bucket, query=[("list-type", "2"), ("prefix", "a")])
    prepared.url = prepared.url.replace("prefix=a", "prefix=b")
    return prepared


def _signed_header_changed(s3, bucket):
    header = s3.wire.vendor("meta-probe")
    prepared = s3.wire.prepare("GET", bucket, query=[("location", None)], headers={header: "a"})
    prepared.headers[header] = "b"
    return prepared


@pytest.mark.rule("storage.auth.signature-mismatch")
@pytest.mark.parametrize(
    "tamper",
    [_wrong_secret, _query_changed_after_signing, _signed_header_changed],
    ids=["wrong-secret", "query-changed", "signed-header-changed"],
)
def test_mismatched_signature_is_refused(s3, bucket, tamper):
    """A request whose signature does not match is 403 SignatureDoesNotMatch."""
    reply = s3.wire.send(tamper(s3, bucket))
    reply.assert_error(403, "SignatureDoesNotMatch")
