"""The reference's SigV4 verifier against requests signed by botocore, intact and mutated."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
import requests
from botocore.credentials import Credentials

from conformance.clients.s3 import PreparedWire, WireClient

ODD_KEYS = [
    "with space",
    "plus+sign",
    "equals=and&amp",
    "tilde~x",
    "ünïcødé/ключ",
    "percent%20literal",
    "semi;colon,comma",
    "star*paren()",
    "question?hash#",
]


@pytest.fixture(scope="module")
def wbucket(wire: WireClient) -> str:
    name = "sigv4-verifier"
    wire.create_bucket(name).assert_ok()
    return name


@pytest.fixture
def clock() -> Iterator[mock.MagicMock]:
    """Lets a test sign as if at another time (botocore reads the time here)."""
    with mock.patch("botocore.auth.get_current_datetime") as patched:
        patched.return_value = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        yield patched


@pytest.mark.parametrize("key", ODD_KEYS)
def test_header_signed_odd_keys_round_trip(wire: WireClient, wbucket: str, key: str) -> None:
    wire.put_object(wbucket, key, b"payload:" + key.encode()).assert_ok()
    reply = wire.get_object(wbucket, key).assert_ok()
    assert reply.body == b"payload:" + key.encode()
    url = wire.presign("GET", wbucket, key)
    assert requests.get(url, timeout=10).content == reply.body


@pytest.mark.parametrize("prefix", ["with space", "plus+", "equals=and&", "ünï", "tilde~"])
def test_odd_query_values_are_accepted(wire: WireClient, wbucket: str, prefix: str) -> None:
    wire.list_objects_v2(wbucket, prefix=prefix, delimiter="/").assert_ok()
    assert (
        requests.get(
            wire.presign("GET", wbucket, query=[("list-type", "2"), ("prefix", prefix)]), timeout=10
        ).status_code
        == 200
    )


def test_unsigned_payload_is_accepted(wire: WireClient, wbucket: str) -> None:
    prepared = wire.prepare(
        "PUT", wbucket, "unsigned", body=b"abc", payload_hash="UNSIGNED-PAYLOAD"
    )
    wire.send(prepared).assert_ok()
    assert wire.get_object(wbucket, "unsigned").body == b"abc"


def test_changed_payload_is_refused(wire: WireClient, wbucket: str) -> None:
    prepared = wire.prepare("PUT", wbucket, "tampered", body=b"original")
    prepared.body = b"tampered"
    wire.send(prepared).assert_error(400, "XAmzContentSHA256Mismatch")
    assert wire.get_object(wbucket, "tampered").status == 404


def test_declared_hash_of_other_body_is_refused(wire: WireClient, wbucket: str) -> None:
    other = hashlib.sha256(b"something else").hexdigest()
    prepared = wire.prepare("PUT", wbucket, "declared", body=b"body", payload_hash=other)
    wire.send(prepared).assert_error(400, "XAmzContentSHA256Mismatch")


def test_changed_header_is_refused(wire: WireClient, wbucket: str) -> None:
    prepared = wire.prepare("GET", wbucket, "x", headers={"x-amz-meta-probe": "a"})
    prepared.headers["x-amz-meta-probe"] = "b"
    wire.send(prepared).assert_error(403, "SignatureDoesNotMatch")


def test_expired_presigned_url_is_refused(
    wire: WireClient, wbucket: str, clock: mock.MagicMock
) -> None:
    clock.return_value -= dt.timedelta(minutes=10)
    url = wire.presign("GET", wbucket, query=[("list-type", "2")], expires=60)
    wire.send(PreparedWire("GET", url)).assert_error(400, "ExpiredRequest")  # dates.md


@pytest.mark.parametrize(
    "moment,status,code",
    [(dt.datetime(9999, 12, 31, 23, 59, 59), 403, "AccessDenied"),
     (dt.datetime(1000, 1, 1), 400, "ExpiredRequest")],
    ids=["year-9999", "year-1000"],
)  # fmt: skip
def test_presigned_dates_at_the_calendar_ends(
    wire: WireClient, wbucket: str, clock: mock.MagicMock, moment: dt.datetime, status: int,
    code: str,
) -> None:  # fmt: skip
    """A URL signed at the last second of year 9999 is not valid yet, one of year 1000 expired:
    never a 500 (hostile7, 2026-11-27: X-Amz-Date + X-Amz-Expires overflowed datetime)."""
    clock.return_value = moment
    url = wire.presign("GET", wbucket, query=[("list-type", "2")], expires=604800)
    wire.send(PreparedWire("GET", url)).assert_error(status, code)


def test_skewed_clock_is_refused(wire: WireClient, wbucket: str, clock: mock.MagicMock) -> None:
    clock.return_value -= dt.timedelta(minutes=20)
    wire.request("GET", wbucket, query=[("location", None)]).assert_error(
        403, "RequestTimeTooSkewed"
    )


@pytest.mark.parametrize("region", ["auto", "", "us-east-1"])
def test_auto_and_aliases_are_accepted(wire: WireClient, wbucket: str, region: str) -> None:
    wire.request("GET", wbucket, query=[("location", None)], region=region).assert_ok()


def test_wrong_region_is_refused(wire: WireClient, wbucket: str) -> None:
    reply = wire.request("GET", wbucket, query=[("location", None)], region="eu-west-1")
    reply.assert_error(400, "AuthorizationHeaderMalformed")


def test_unknown_access_key_is_refused(wire: WireClient, wbucket: str) -> None:
    creds = Credentials("NOSUCHKEY0000000000", "whatever")
    wire.request("GET", wbucket, credentials=creds).assert_error(403, "InvalidAccessKeyId")


def test_unsigned_request_is_refused(wire: WireClient, wbucket: str) -> None:
    wire.request("GET", wbucket, sign="none").assert_error(401, "Unauthorized")


def test_second_account_has_its_own_buckets(reference: Any, wire: WireClient, wbucket: str) -> None:
    other = reference.s3["second_account"]
    creds = Credentials(other["access_key_id"], other["secret_access_key"])
    reply = wire.request("GET", credentials=creds).assert_ok()
    assert wbucket.encode() not in reply.body
    wire.request("GET", wbucket, credentials=creds).assert_error(404, "NoSuchBucket")


def test_virtual_hosted_other_account_is_denied(
    reference: Any, wire: WireClient, wbucket: str
) -> None:
    port = wire.endpoint.rsplit(":", 1)[1]
    own = reference.s3["account_id"]
    other = reference.s3["second_account"]["account_id"]
    for account, status in ((own, 200), (other, 403)):
        host = f"{wbucket}.{account}.storage.localhost:{port}"
        reply = wire.request("GET", query=[("location", None)], headers={"Host": host})
        assert reply.status == status, reply.body
