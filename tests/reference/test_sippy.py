"""Migration (sippy) configuration on the reference: dated shapes, refusals, no secrets echoed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.mgmt import MgmtClient

V2 = {
    "source": {"provider": "aws", "bucket": "src", "region": "us-east-1",
               "accessKeyId": "a", "secretAccessKey": "s3cret"},
    "destination": {"provider": "r2", "accessKeyId": "d", "secretAccessKey": "dsecret"},
}  # fmt: skip
FLAT = {"bucket": "src", "region": "us-east-1", "access_key_id": "a", "secret_access_key": "x"}


def client(ref: Any) -> MgmtClient:
    return MgmtClient.from_surface(ref.ready["surfaces"]["mgmt"])


def test_today_v2_shape_and_no_secrets(reference: Any, s3: Any) -> None:
    mgmt = client(reference)
    s3.create_bucket(Bucket="proj-sippy-v2")
    got = mgmt.put_sippy("proj-sippy-v2", V2).assert_envelope_ok()
    assert got["source"] == {"provider": "aws", "bucket": "src", "region": "us-east-1"}
    assert got["destination"]["provider"] == "r2"
    assert "secret" not in str(got).lower()
    mgmt.put_sippy("proj-sippy-v2", FLAT).assert_envelope_error(400, 10060, "/source")


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"source": {**V2["source"], "provider": "azure"}}, "/source/provider"),
        ({"destination": {**V2["destination"], "provider": "s3"}}, "/destination/provider"),
        ({"source": {**V2["source"], "bucket": ""}}, "/source/bucket"),
        ({"destination": "r2"}, "/destination"),
    ],
)
def test_v2_refusals(reference: Any, s3: Any, change: dict[str, Any], pointer: str) -> None:
    s3.create_bucket(Bucket=f"proj-sippy-bad{abs(hash(pointer)) % 10**6}")
    name = f"proj-sippy-bad{abs(hash(pointer)) % 10**6}"
    client(reference).put_sippy(name, {**V2, **change}).assert_envelope_error(400, 10060, pointer)


def test_missing_bucket_404(reference: Any) -> None:
    client(reference).get_sippy("proj-sippy-none").assert_envelope_error(404, code=10006)


def test_before_change_flat_and_no_validate(launch: Callable[..., Any], make_boto: Any) -> None:
    ref = launch("--behaviour-date", "2024-02-05")
    make_boto(ref.s3).create_bucket(Bucket="proj-flat")
    mgmt = client(ref)
    got = mgmt.put_sippy("proj-flat", FLAT).assert_envelope_ok()
    assert got == {"enabled": True, "bucket": "src", "region": "us-east-1"}
    mgmt.put_sippy("proj-flat", V2).assert_envelope_error(400, code=10060)
    mgmt.validate_sippy("proj-flat").assert_envelope_error(404, code=7000)
