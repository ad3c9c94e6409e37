"""R2 buckets on the reference's management API: the reference's own choices and refusals."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from conformance.clients.mgmt import MgmtClient

_ids = itertools.count()


@pytest.fixture(scope="module")
def mgmt(reference: Any) -> MgmtClient:
    return MgmtClient.from_surface(reference.ready["surfaces"]["mgmt"])


def fresh() -> str:
    return f"proj-r2-{next(_ids)}"


def test_create_refusals(mgmt: MgmtClient) -> None:
    mgmt.create_bucket("Bad_Name").assert_envelope_error(400, code=10005, pointer="/name")
    mgmt.create_bucket(fresh(), jurisdiction="mars").assert_envelope_error(
        400, code=10005, pointer="/jurisdiction"
    )
    mgmt.request("POST", mgmt.r2("/buckets"), body=["x"]).assert_envelope_error(400, code=10005)
    name = fresh()
    mgmt.create_bucket(name).assert_envelope_ok()
    mgmt.create_bucket(name).assert_envelope_error(409, code=10004)


def test_delete_non_empty_refused(mgmt: MgmtClient, s3: Any) -> None:
    name = fresh()
    mgmt.create_bucket(name).assert_envelope_ok()
    s3.put_object(Bucket=name, Key="k", Body=b"x")
    mgmt.delete_bucket(name).assert_envelope_error(409, code=10008)
    s3.delete_object(Bucket=name, Key="k")
    mgmt.delete_bucket(name).assert_envelope_ok()
    mgmt.delete_bucket(name).assert_envelope_error(404, code=10006)


def test_buckets_shared_with_s3(mgmt: MgmtClient, s3: Any) -> None:
    """One namespace: a bucket created on S3 is got on the management API and vice versa."""
    via_s3, via_mgmt = fresh(), fresh()
    s3.create_bucket(Bucket=via_s3)
    mgmt.create_bucket(via_mgmt, jurisdiction="eu").assert_envelope_ok()
    assert mgmt.get_bucket(via_s3).assert_envelope_ok()["jurisdiction"] == "default"
    assert mgmt.get_bucket(via_mgmt).assert_envelope_ok()["jurisdiction"] == "eu"
    s3.head_bucket(Bucket=via_mgmt)


@pytest.mark.parametrize(
    "params",
    [
        {"per_page": -1},
        {"per_page": 1001},
        {"per_page": "x"},
        {"cursor": "%%%"},
        # a non-ASCII cursor: base64 refuses it with a plain ValueError (was a 500; found by
        # tests/reliability/test_battery_surfaces.py with cursor U+202E)
        {"cursor": "\u202e"},
        {"cursor": "é" * 4},
    ],
)
def test_list_parameter_refusals(mgmt: MgmtClient, params: dict[str, Any]) -> None:
    mgmt.list_buckets(**params).assert_envelope_error(400, code=10009)


def test_cursor_resumes_after_last_name(mgmt: MgmtClient) -> None:
    names = sorted(f"proj-cur-{next(_ids)}-{i}" for i in range(3))
    for name in names:
        mgmt.create_bucket(name).assert_envelope_ok()
    first = mgmt.list_buckets(name_contains="proj-cur-", per_page=2)
    assert [b["name"] for b in first.result["buckets"]] == names[:2]
    cursor = first.json["result_info"]["cursor"]
    rest = mgmt.list_buckets(name_contains="proj-cur-", per_page=2, cursor=cursor)
    assert [b["name"] for b in rest.result["buckets"]] == names[2:]
    assert "cursor" not in rest.json["result_info"]


def test_unknown_account_is_403_with_code(mgmt: MgmtClient) -> None:
    mgmt.list_buckets(account_id="f" * 32).assert_envelope_error(403, code=9109)


def test_clock_refusals(mgmt: MgmtClient) -> None:
    bad = mgmt.request("POST", "/_reference/clock", body={"advance_seconds": -1})
    bad.assert_envelope_error(400, code=10090, pointer="/advance_seconds")
    bad = mgmt.request("POST", "/_reference/clock", body={"advance_seconds": "1"})
    bad.assert_envelope_error(400, code=10090)
