"""One time per bucket: what the reference stamps and what it judges use the same clock, and
moving one bucket's clock never reaches another bucket's resources.

Each test starts a reference of its own (the server-wide form moves every bucket's clock).
Margins are in days, so a busy machine cannot make these tests flake.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.mgmt import MgmtClient
from reference_impl.storage.clock import Clock

DAY = 86400
Started = tuple[Any, MgmtClient]


@pytest.fixture
def started(launch: Callable[..., Any], make_boto: Callable[..., Any]) -> Started:
    ref = launch()
    return make_boto(ref.s3), MgmtClient.from_surface(ref.ready["surfaces"]["mgmt"])


def _upload(s3: Any, bucket: str, key: str) -> str:
    upload_id: str = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    return upload_id


def _listed(s3: Any, bucket: str) -> dict[str, dt.datetime]:
    """Upload id -> Initiated, of every upload in progress in the bucket."""
    uploads = s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    return {u["UploadId"]: u["Initiated"] for u in uploads}


def _complete(s3: Any, bucket: str, key: str, upload_id: str) -> None:
    """Upload one part and complete the upload; the object then reads back."""
    part = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=1, Body=b"p")
    s3.complete_multipart_upload(
        Bucket=bucket,
        Key=key,
        UploadId=upload_id,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]},
    )
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"p"


def _days_ahead(moment: dt.datetime) -> float:
    return (moment.timestamp() - time.time()) / DAY


def test_server_wide_advance_spares_an_upload_made_after_it(started: Started) -> None:
    """The deterministic form of the flake: advance 8 days, create an upload, advance 0."""
    s3, mgmt = started
    s3.create_bucket(Bucket="later")  # carries the default rule: abort uploads after 7 days
    stale = _upload(s3, "later", "stale")
    moved = mgmt.advance_clock(8 * DAY).assert_envelope_ok()
    assert moved["applied"]["aborted"] == 1 and stale not in _listed(s3, "later")
    upload_id = _upload(s3, "later", "k")
    mgmt.advance_clock(0).assert_envelope_ok()  # a lifecycle pass
    listed = _listed(s3, "later")
    assert upload_id in listed, "an upload of seconds ago was aborted"
    assert 7.5 < _days_ahead(listed[upload_id]) < 8.5, "every bucket's clock moved"
    _complete(s3, "later", "k", upload_id)


def test_moving_one_bucket_does_not_reach_another(started: Started) -> None:
    """Bucket A's clock moves 8 days; an upload in bucket B made afterwards is B's business."""
    s3, mgmt = started
    for name in ("mover", "other"):
        s3.create_bucket(Bucket=name)
    moved = mgmt.advance_clock(8 * DAY, bucket="mover").assert_envelope_ok()
    assert moved["offset_seconds"] == 8 * DAY
    upload_id = _upload(s3, "other", "k")
    s3.put_object(Bucket="other", Key="o", Body=b"o")
    mgmt.advance_clock(0, bucket="mover").assert_envelope_ok()  # a lifecycle pass
    listed = _listed(s3, "other")
    assert upload_id in listed, "another bucket's clock move aborted this upload"
    assert mgmt.advance_clock(0, bucket="other").assert_envelope_ok()["offset_seconds"] == 0
    assert abs(_days_ahead(listed[upload_id])) < 0.5
    modified = s3.head_object(Bucket="other", Key="o")["LastModified"]
    assert abs(_days_ahead(modified)) < 0.5, "B's object was stamped on A's clock"
    _complete(s3, "other", "k", upload_id)


def test_stamps_and_judgement_follow_the_bucket_clock(started: Started) -> None:
    """After an 8-day advance, a bucket stamps 8 days ahead and judges on the same clock."""
    s3, mgmt = started
    s3.create_bucket(Bucket="ahead")
    mgmt.advance_clock(8 * DAY, bucket="ahead").assert_envelope_ok()
    s3.put_object(Bucket="ahead", Key="o", Body=b"o")
    modified = s3.head_object(Bucket="ahead", Key="o")["LastModified"]
    assert 7.5 < _days_ahead(modified) < 8.5, f"LastModified {modified} is not on the clock"
    listed = s3.list_objects_v2(Bucket="ahead")["Contents"]
    assert 7.5 < _days_ahead(listed[0]["LastModified"]) < 8.5
    upload_id = _upload(s3, "ahead", "u")
    mgmt.advance_clock(0, bucket="ahead").assert_envelope_ok()
    initiated = _listed(s3, "ahead").get(upload_id)
    assert initiated is not None, "an upload made after the advance was judged on wall time"
    assert 7.5 < _days_ahead(initiated) < 8.5
    s3.put_bucket_cors(Bucket="ahead", CORSConfiguration={"CORSRules": [
        {"AllowedMethods": ["GET"], "AllowedOrigins": ["*"]}]})  # fmt: skip
    entries = mgmt.audit_log("ahead").assert_envelope_ok()
    latest = dt.datetime.fromisoformat(entries[-1]["time"].replace("Z", "+00:00"))
    assert 7.5 < _days_ahead(latest) < 8.5, "the audit entry is not on the bucket's clock"
    applied = mgmt.advance_clock(8 * DAY, bucket="ahead").assert_envelope_ok()["applied"]
    assert applied["aborted"] == 1, "the default 7-day rule must act on the bucket's clock"
    assert upload_id not in _listed(s3, "ahead")


def test_a_recreated_bucket_starts_on_time(started: Started) -> None:
    """Deleting a bucket forgets its clock: the next bucket of that name stamps wall time."""
    s3, mgmt = started
    s3.create_bucket(Bucket="again")
    mgmt.advance_clock(8 * DAY, bucket="again").assert_envelope_ok()
    s3.delete_bucket(Bucket="again")
    s3.create_bucket(Bucket="again")
    assert mgmt.advance_clock(0, bucket="again").assert_envelope_ok()["offset_seconds"] == 0
    s3.put_object(Bucket="again", Key="o", Body=b"o")
    assert abs(_days_ahead(s3.head_object(Bucket="again", Key="o")["LastModified"])) < 0.5


def test_bucket_form_refusals(started: Started) -> None:
    _, mgmt = started
    bad = mgmt.request("POST", "/_reference/clock", body={"advance_seconds": 1, "bucket": 7})
    bad.assert_envelope_error(400, code=10090, pointer="/bucket")
    mgmt.advance_clock(1, bucket="nowhere").assert_envelope_error(404, code=10006)


def test_clock_adds_server_and_bucket_offsets() -> None:
    clock = Clock(wall=lambda: 1000.0)
    assert clock.advance(10.0) == 10.0
    assert clock.advance(5.0, "acct", "b") == 15.0
    assert (clock.now(), clock.now("acct", "b"), clock.now("acct", "c")) == (1010, 1015, 1010)
    assert clock.now("other", "b") == 1010, "a bucket's offset belongs to its account"
    clock.forget("acct", "b")
    assert clock.now("acct", "b") == 1010
    with pytest.raises(ValueError):
        clock.advance(-1.0, "acct", "b")


def test_advances_never_take_a_clock_past_what_dates_can_hold(started: Started) -> None:
    """Each advance is at most 100 years, but they added up without bound: 80 of them took a
    bucket's clock past year 9999, and the advance itself, then every GetObject, HeadObject and
    listing of the bucket, answered 500 (hostile7, 2026-11-27). An advance that would take any
    clock more than 1,000 years ahead is refused with 10090; the bucket keeps answering."""
    s3, mgmt = started
    s3.create_bucket(Bucket="far")
    century = 100 * 365 * DAY
    for _ in range(10):  # 1,000 years: the most a clock may be ahead
        mgmt.advance_clock(century, bucket="far").assert_envelope_ok()
    for bucket in ("far", None):  # the bucket's own clock, then every clock (server-wide)
        refused = mgmt.advance_clock(century, bucket=bucket)
        refused.assert_envelope_error(400, code=10090, pointer="/advance_seconds")
    s3.put_object(Bucket="far", Key="o", Body=b"o")
    assert s3.get_object(Bucket="far", Key="o")["Body"].read() == b"o"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="far")["Contents"]] == ["o"]


def test_a_far_bucket_never_bounds_another_buckets_advance(started: Started) -> None:
    """The 1,000-year bound is each bucket's own clock's: a bucket already 1,000 years ahead
    must not refuse another bucket's advance. A bound read from the furthest clock of all (the
    server-wide form's) would, and one test's bucket would then stop every other test's."""
    s3, mgmt = started
    for name in ("far", "near"):
        s3.create_bucket(Bucket=name)
    century = 100 * 365 * DAY
    for _ in range(10):
        mgmt.advance_clock(century, bucket="far").assert_envelope_ok()
    mgmt.advance_clock(century, bucket="near").assert_envelope_ok()
    mgmt.advance_clock(century, bucket="far").assert_envelope_error(400, code=10090)
