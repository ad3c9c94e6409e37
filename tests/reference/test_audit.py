"""Config audit logs in the reference: every kind of change recorded, persisted, dated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.mgmt import MgmtClient


@pytest.mark.slow  # >3 s on its own: out of the fast tier (docs/testing.md)
def test_every_change_kind_recorded_and_persisted(
    launch: Callable[..., Any], make_boto: Callable[..., Any], tmp_path: Any
) -> None:
    data = tmp_path / "audit-data"
    ref = launch(data_dir=data)
    s3 = make_boto(ref.s3)
    mgmt = MgmtClient.from_surface(ref.ready["surfaces"]["mgmt"])
    s3.create_bucket(Bucket="aud")
    s3.put_bucket_encryption(Bucket="aud", ServerSideEncryptionConfiguration={"Rules": [
        {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]})  # fmt: skip
    s3.delete_bucket_encryption(Bucket="aud")
    s3.put_bucket_lifecycle_configuration(Bucket="aud", LifecycleConfiguration={"Rules": [
        {"ID": "x", "Filter": {"Prefix": ""}, "Status": "Enabled",
         "Expiration": {"Days": 1}}]})  # fmt: skip
    s3.delete_bucket_lifecycle(Bucket="aud")
    source = {"provider": "aws", "bucket": "s", "region": "us-east-1", "accessKeyId": "a"}
    config = {
        "source": {**source, "secretAccessKey": "b"},
        "destination": {"provider": "r2", "accessKeyId": "c", "secretAccessKey": "d"},
    }
    mgmt.put_sippy("aud", config).assert_envelope_ok()
    mgmt.delete_sippy("aud").assert_envelope_ok()
    mgmt.create_bucket("aud-two").assert_envelope_ok()
    expected = ["CreateBucket", "PutBucketEncryption", "DeleteBucketEncryption",
                "PutBucketLifecycleConfiguration", "DeleteBucketLifecycleConfiguration",
                "PutBucketMigration", "DeleteBucketMigration"]  # fmt: skip
    entries = mgmt.audit_log(bucket="aud").assert_envelope_ok()
    assert [e["action"] for e in entries] == expected
    assert entries[0]["actor"] == "access_key:" + ref.s3["access_key_id"]
    assert entries[-1]["actor"].startswith("user:")
    assert "secretAccessKey" not in str(entries)
    everything = mgmt.audit_log().assert_envelope_ok()
    assert {e["bucket"] for e in everything} == {"aud", "aud-two"}
    ref.stop()
    again = launch(data_dir=data)
    kept = MgmtClient.from_surface(again.ready["surfaces"]["mgmt"]).audit_log(bucket="aud")
    assert [e["action"] for e in kept.assert_envelope_ok()] == expected


@pytest.mark.slow  # >3 s on its own: out of the fast tier (docs/testing.md)
def test_paging_and_before_availability(launch: Callable[..., Any], make_boto: Any) -> None:
    ref = launch()
    s3 = make_boto(ref.s3)
    mgmt = MgmtClient.from_surface(ref.ready["surfaces"]["mgmt"])
    for i in range(3):
        s3.create_bucket(Bucket=f"page-{i}")
    first = mgmt.request("GET", mgmt.r2("/audit"), params={"per_page": 2})
    assert len(first.assert_envelope_ok()) == 2
    cursor = first.json["result_info"]["cursor"]
    rest = mgmt.request("GET", mgmt.r2("/audit"), params={"per_page": 2, "cursor": cursor})
    assert [e["bucket"] for e in rest.assert_envelope_ok()] == ["page-2"]
    old = launch("--behaviour-date", "2023-08-22", data_dir=ref.data_dir.parent / "old")
    MgmtClient.from_surface(old.ready["surfaces"]["mgmt"]).audit_log().assert_envelope_error(404)
