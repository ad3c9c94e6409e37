"""Config audit logs (reference-only listing): each configuration change, time, actor, change.

The listing is the reference's own API (`GET .../r2/audit?bucket=&cursor=&per_page=`, the
management API's envelope and cursor paging), so the rule holds the reference to it whole: the
actor of an S3 change is the access key that signed it (in the Authorization header or a
presigned URL's X-Amz-Credential), a change made on the management API
names its account, and a walk page by page lists the same entries as one page.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from conformance.clients.public import CustomDomains, domain_for

S3_ACTIONS = ["CreateBucket", "PutBucketCors", "DeleteBucketCors"]
DOMAIN_ACTIONS = ["PutBucketCustomDomain", "DeleteBucketCustomDomain"]


def _walk(mgmt: Any, bucket: str, per_page: int) -> list[dict[str, Any]]:
    """Every entry of the bucket, page by page, following the cursor the pages hand out."""
    found: list[dict[str, Any]] = []
    cursor = None
    for _ in range(20):
        params: dict[str, Any] = {"bucket": bucket, "per_page": per_page}
        if cursor:
            params["cursor"] = cursor
        reply = mgmt.request("GET", mgmt.r2("/audit"), params=params)
        page = reply.assert_envelope_ok(200)
        assert len(page) <= per_page, f"a page of {per_page} holds {len(page)}: {page}"
        found += page
        cursor = (reply.json.get("result_info") or {}).get("cursor")
        if not page or not cursor:
            return found
    raise AssertionError(f"the cursor walk did not end after 20 pages: {found}")


@pytest.mark.rule("storage.audit-logs.listed-reference")
def test_changes_listed(s3, mgmt, names, as_of, target):
    """Create, CORS, custom domain and delete of a bucket are listed in order, with time and
    actor; a listing of one bucket holds none of another bucket's changes (one made just before);
    a walk one entry per page lists the same entries."""
    name, other = names.bucket(), names.bucket()
    s3.wire.create_bucket(other).assert_ok()
    s3.wire.request("DELETE", other).assert_ok()
    began = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    s3.wire.create_bucket(name).assert_ok()
    s3.boto.put_bucket_cors(Bucket=name, CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": ["https://example.com"], "AllowedMethods": ["GET"]}]})  # fmt: skip
    # a presigned URL: the signer is read from X-Amz-Credential, not the Authorization header
    query = [("cors", None)]
    presigned = s3.wire.prepare("DELETE", name, query=query, sign="presign", expires=300)
    s3.wire.send(presigned).assert_ok()
    expected = list(S3_ACTIONS)
    if target.offers("public"):
        domains = CustomDomains(target.surface("mgmt"))
        domains.create(name, domain_for(name)).assert_envelope_ok(200)
        domains.delete(name, domain_for(name)).assert_envelope_ok(200)
        expected += DOMAIN_ACTIONS
    s3.wire.request("DELETE", name).assert_ok()
    expected.append("DeleteBucket")
    entries = mgmt.audit_log(bucket=name).assert_envelope_ok(200)
    assert [entry["action"] for entry in entries] == expected, entries
    signer = f"access_key:{target.surface('s3')['access_key_id']}"
    for entry in entries:
        assert entry["bucket"] == name, entry
        when = dt.datetime.fromisoformat(entry["time"].replace("Z", "+00:00"))
        assert when >= began, f"an entry older than the change: {entry}"  # clocks only move on
        if entry["action"] in DOMAIN_ACTIONS:
            assert entry["actor"], f"a management API change names no actor: {entry}"
        else:
            assert entry["actor"] == signer, f"the signer of an S3 change is {signer}: {entry}"
    assert entries[1]["change"], "the CORS change is not recorded"
    times = [entry["time"] for entry in entries]
    assert times == sorted(times), f"entries not oldest first: {times}"
    assert _walk(mgmt, name, 1) == entries, "a walk one entry per page lists other entries"
