"""S3 authentication refusals: expiry, replay with another payload, region, skew, other account.

Each is a way a leaked or stale signature could be turned into access; the reference must
refuse every one with the code the spec (and dates.md) gives, and never hand out the data.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
import requests
from reliability.refproc import REQUEST_TIMEOUT, RefProcess, holding

from conformance.clients.s3_wire import WireClient, WireReply

BUCKET = "secure-bucket"
SECRET = b"the first account's data"


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    with holding(tmp_path_factory.mktemp("sec") / "data", BUCKET, {"secret": SECRET}) as proc:
        yield proc


@pytest.fixture
def wire(ref: RefProcess) -> WireClient:
    return ref.wire()


def _refused(reply: WireReply, status: int, *codes: str) -> None:
    assert SECRET not in reply.body, "the data was served"
    assert (reply.status, reply.error_code) in {(status, c) for c in codes}, (
        reply.status,
        reply.error_code,
        reply.body[:300],
    )


@pytest.mark.slow
def test_expired_presigned_url_is_refused(wire: WireClient) -> None:
    # X-Amz-Date has one-second resolution: 3 s leaves margin for the first, valid GET
    url = wire.presign("GET", BUCKET, "secret", expires=3)
    assert requests.get(url, timeout=REQUEST_TIMEOUT).content == SECRET
    time.sleep(4.5)
    response = requests.get(url, timeout=REQUEST_TIMEOUT)
    _refused(
        WireReply("GET", url, response.status_code, response.headers, response.content),
        400,
        "ExpiredRequest",
    )


def test_presigned_url_cannot_be_reused_for_another_key(wire: WireClient) -> None:
    url = wire.presign("GET", BUCKET, "other-key")
    response = requests.get(url.replace("/other-key?", "/secret?"), timeout=REQUEST_TIMEOUT)
    _refused(
        WireReply("GET", url, response.status_code, response.headers, response.content),
        403,
        "SignatureDoesNotMatch",
    )


def test_replayed_signature_with_changed_payload_is_refused(wire: WireClient) -> None:
    prepared = wire.prepare("PUT", BUCKET, "replayed", body=b"original body")
    assert wire.send(prepared).status == 200
    prepared.body = b"a different body of another length"
    prepared.headers["Content-Length"] = str(len(prepared.body))
    _refused(wire.send(prepared), 400, "XAmzContentSHA256Mismatch")
    assert wire.get_object(BUCKET, "replayed").body == b"original body"


def test_replayed_signature_with_changed_signed_header_is_refused(wire: WireClient) -> None:
    prepared = wire.prepare(
        "PUT", BUCKET, "replayed-meta", body=b"x", headers={"x-amz-meta-owner": "alice"}
    )
    assert wire.send(prepared).status == 200
    prepared.headers["x-amz-meta-owner"] = "mallory"
    _refused(wire.send(prepared), 403, "SignatureDoesNotMatch")


def test_replayed_signature_on_another_path_is_refused(wire: WireClient) -> None:
    prepared = wire.prepare("GET", BUCKET, "public-thing")
    prepared.url = prepared.url.replace("/public-thing", "/secret")
    _refused(wire.send(prepared), 403, "SignatureDoesNotMatch")


@pytest.mark.parametrize("sign", ["header", "presign"])
def test_wrong_region_is_refused(wire: WireClient, sign: str) -> None:
    prepared = wire.prepare("GET", BUCKET, "secret", sign=sign, region="eu-west-1")
    reply = wire.send(prepared)
    _refused(reply, 400, "AuthorizationHeaderMalformed", "AuthorizationQueryParametersError")


@pytest.mark.parametrize("minutes", [-16, 16])
def test_clock_skew_beyond_15_minutes_is_refused(wire: WireClient, minutes: int) -> None:
    moment = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(minutes=minutes)
    with mock.patch("botocore.auth.get_current_datetime", return_value=moment):
        prepared = wire.prepare("GET", BUCKET, "secret")
    _refused(wire.send(prepared), 403, "RequestTimeTooSkewed")


def test_clock_skew_within_15_minutes_is_accepted(wire: WireClient) -> None:
    moment = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(minutes=14)
    with mock.patch("botocore.auth.get_current_datetime", return_value=moment):
        prepared = wire.prepare("GET", BUCKET, "secret")
    assert wire.send(prepared).body == SECRET


def test_unknown_access_key_is_refused(ref: RefProcess) -> None:
    s3 = ref.surface("s3")
    stranger = WireClient(s3["endpoint"], "NOSUCHACCESSKEY00000", "x" * 40, timeout=REQUEST_TIMEOUT)
    _refused(stranger.get_object(BUCKET, "secret"), 403, "InvalidAccessKeyId")


def test_right_key_wrong_secret_is_refused(ref: RefProcess) -> None:
    s3 = ref.surface("s3")
    forged = WireClient(s3["endpoint"], s3["access_key_id"], "y" * 40, timeout=REQUEST_TIMEOUT)
    _refused(forged.get_object(BUCKET, "secret"), 403, "SignatureDoesNotMatch")


def test_second_account_cannot_reach_the_first_accounts_data(ref: RefProcess) -> None:
    other = ref.wire(account="second")
    _refused(other.get_object(BUCKET, "secret"), 404, "NoSuchBucket")
    _refused(other.list_objects_v2(BUCKET), 404, "NoSuchBucket")
    _refused(other.request("DELETE", BUCKET, "secret"), 404, "NoSuchBucket")
    listed = other.request("GET")
    assert listed.status == 200 and BUCKET.encode() not in listed.body
    assert ref.wire().get_object(BUCKET, "secret").body == SECRET


def test_second_account_cannot_use_the_first_accounts_host(ref: RefProcess) -> None:
    """Virtual-hosted style naming the first account, signed by the second: AccessDenied."""
    s3: dict[str, Any] = ref.surface("s3")
    other = ref.wire(account="second")
    prepared = other.prepare(
        "GET", BUCKET, "secret", headers={"Host": f"{s3['account_id']}.r2.example.com"}
    )
    _refused(other.send(prepared), 403, "AccessDenied")


def test_anonymous_request_is_refused(wire: WireClient) -> None:
    _refused(wire.request("GET", BUCKET, "secret", sign="none"), 401, "Unauthorized")
