"""Lifecycle rules applied on the reference's clock, at their boundaries (reference-only).

S3 expires an object at the first midnight UTC at or after LastModified + Days. An implementer
may expire at LastModified + Days itself, count from now instead of the object's time, apply
a rule whose Status is Disabled, apply a rule outside its prefix, expire only the first page
of a long prefix, or skip a rule that gives a Date instead of Days. Each case moves only its
own bucket's clock (the reference keeps one per bucket, so tests in other buckets never see
time jump); a clock only moves forward, so a case reads where it is before each move.
"""

from __future__ import annotations

import datetime as dt
import math
from email.utils import parsedate_to_datetime

import pytest

from conformance.suite.setup_check import not_checked

from .test_lifecycle_config import DAY, abort_rule, expire_rule, lifecycle_xml, put_lifecycle

MARGIN = 120  # seconds kept from each boundary (the request itself takes time)


def _clock(mgmt, bucket) -> tuple[float, float]:
    """(offset, now) of the bucket's clock in the reference, in seconds."""
    result = mgmt.advance_clock(0, bucket).assert_envelope_ok()
    now = dt.datetime.fromisoformat(result["now"]).timestamp()
    return float(result["offset_seconds"]), now


def _modified(s3, bucket, key) -> float:
    stamp = s3.wire.request("HEAD", bucket, key).assert_ok().header("last-modified")
    return parsedate_to_datetime(stamp).timestamp()


@pytest.mark.rule("storage.lifecycle.expiration-applied-reference")
def test_expiry_waits_for_the_midnight_after_days(s3, mgmt, bucket, names):
    """Past LastModified + Days, and minutes before the next midnight UTC: kept; past it:
    expired (a day counted in other than 86400 seconds moves that midnight into the day)."""
    for _attempt in range(2):
        key = "exp/" + names.key()
        s3.wire.put_object(bucket, key, b"x").assert_ok()
        modified = _modified(s3, bucket, key)
        _, now = _clock(mgmt, bucket)
        days = math.ceil((now - modified) / DAY) + 2
        plus_days = modified + 1 + days * DAY  # Last-Modified is truncated to the second
        due = math.ceil((modified + days * DAY) / DAY) * DAY
        if due - plus_days >= 3 * MARGIN:
            break
        # written minutes before midnight UTC: no window between Days and midnight. Writes are
        # stamped on the bucket's clock, so move it past midnight and write another object
        mgmt.advance_clock(due - plus_days + 2 * MARGIN, bucket).assert_envelope_ok()
    else:
        not_checked("the object was written minutes before midnight UTC: no window to test")
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule("exp", "exp/", days))).assert_ok()
    _, now = _clock(mgmt, bucket)
    mgmt.advance_clock(plus_days + MARGIN - now, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, key).assert_ok()  # Days have passed, midnight has not
    _, now = _clock(mgmt, bucket)
    mgmt.advance_clock(due - MARGIN - now, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, key).assert_ok()  # minutes before that midnight: still kept
    _, now = _clock(mgmt, bucket)
    mgmt.advance_clock(due + MARGIN - now, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.lifecycle.expiration-applied-reference")
def test_disabled_rule_and_other_prefix_are_not_applied(s3, mgmt, bucket, names):
    """A Disabled rule expires nothing; an Enabled one only under its prefix."""
    disabled, other, doomed = "off/" + names.key(), "else/" + names.key(), "on/" + names.key()
    for key in (disabled, other, doomed):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    off = expire_rule("off", "off/", 1).replace(
        "<Status>Enabled</Status>", "<Status>Disabled</Status>"
    )
    put_lifecycle(s3, bucket, lifecycle_xml(off, expire_rule("on", "on/", 1))).assert_ok()
    mgmt.advance_clock(3 * DAY, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, doomed).assert_error(404, "NoSuchKey")
    s3.wire.get_object(bucket, disabled).assert_ok()
    s3.wire.get_object(bucket, other).assert_ok()


@pytest.mark.rule("storage.lifecycle.expiration-applied-reference")
def test_every_object_of_a_long_prefix_goes_and_a_later_rule_still_applies(s3, mgmt, bucket, names):
    """More objects under a rule's prefix than one read of them holds (the reference reads 50
    at a time) all go, and the rule after it is still applied. An implementer may expire only
    the first page of its listing, or end the pass when a listing runs dry."""
    many = [f"many/{n:03d}-{names.key()}" for n in range(101)]
    last = "last/" + names.key()
    for key in (*many, last):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    rules = lifecycle_xml(expire_rule("many", "many/", 1), expire_rule("last", "last/", 1))
    put_lifecycle(s3, bucket, rules).assert_ok()
    mgmt.advance_clock(3 * DAY, bucket).assert_envelope_ok()
    left = s3.boto.list_objects_v2(Bucket=bucket, Prefix="many/").get("Contents", [])
    assert not left, f"{len(left)} of {len(many)} objects under many/ kept: {left[0]['Key']}"
    s3.wire.get_object(bucket, last).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.lifecycle.abort-multipart-applied-reference")
def test_every_upload_past_one_read_is_aborted(s3, mgmt, bucket, names):
    """More incomplete uploads than one read of them holds (the reference reads 50 at a time)
    are all aborted. An implementer may abort only the first page, or resume the next page
    from a position that is not where the last one ended."""
    started = [
        s3.boto.create_multipart_upload(Bucket=bucket, Key=f"up/{n:03d}-{names.key()}")
        for n in range(101)
    ]
    put_lifecycle(s3, bucket, lifecycle_xml(abort_rule("abort", 1))).assert_ok()
    mgmt.advance_clock(3 * DAY, bucket).assert_envelope_ok()
    left = [
        upload["Key"]
        for page in s3.boto.get_paginator("list_multipart_uploads").paginate(Bucket=bucket)
        for upload in page.get("Uploads", [])
    ]
    assert not left, f"{len(left)} of {len(started)} uploads not aborted: {left[0]}"


@pytest.mark.rule("storage.lifecycle.expiration-applied-reference")
def test_an_expiry_rule_after_an_upload_abort_rule_still_applies(s3, mgmt, bucket, names):
    """Rules are each applied, whatever kind comes before: an Expiration rule listed (and
    named, in ID order) after an AbortIncompleteMultipartUpload rule still expires its objects.
    An implementer whose walk over the uploads ends in an error (reading one page past the
    last) may drop every rule after it, for the bucket, on every pass."""
    s3.boto.create_multipart_upload(Bucket=bucket, Key="up/" + names.key())
    doomed, kept = "last/" + names.key(), "other/" + names.key()
    for key in (doomed, kept):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    rules = lifecycle_xml(abort_rule("a-abort", 1), expire_rule("b-last", "last/", 1))
    put_lifecycle(s3, bucket, rules).assert_ok()
    mgmt.advance_clock(3 * DAY, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, doomed).assert_error(404, "NoSuchKey")
    s3.wire.get_object(bucket, kept).assert_ok()


def date_rule(rule_id: str, prefix: str, date: str) -> str:
    return (
        f"<Rule><ID>{rule_id}</ID><Filter><Prefix>{prefix}</Prefix></Filter>"
        f"<Status>Enabled</Status><Expiration><Date>{date}</Date></Expiration></Rule>"
    )


@pytest.mark.rule("storage.lifecycle.expiration-applied-reference")
def test_expiration_date_applies_from_that_midnight(s3, mgmt, bucket, names):
    """A rule with an Expiration Date (midnight UTC) keeps the objects under its prefix until
    that moment and expires them after it; objects outside the prefix stay."""
    dated, other = "dated/" + names.key(), "other/" + names.key()
    for key in (dated, other):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    _, now = _clock(mgmt, bucket)
    midnight = (math.floor(now / DAY) + 2) * DAY  # between one and two days ahead
    text = dt.datetime.fromtimestamp(midnight, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    put_lifecycle(s3, bucket, lifecycle_xml(date_rule("dated", "dated/", text))).assert_ok()
    _, now = _clock(mgmt, bucket)
    mgmt.advance_clock(midnight - MARGIN - now, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, dated).assert_ok()  # minutes before the date
    _, now = _clock(mgmt, bucket)
    mgmt.advance_clock(midnight + MARGIN - now, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, dated).assert_error(404, "NoSuchKey")
    s3.wire.get_object(bucket, other).assert_ok()


def prefixed_abort_rule(rule_id: str, prefix: str, days: int) -> str:
    return (f"<Rule><ID>{rule_id}</ID><Filter><Prefix>{prefix}</Prefix></Filter>"
            "<Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>"
            f"{days}</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>")  # fmt: skip


@pytest.mark.rule("storage.lifecycle.abort-multipart-applied-reference")
def test_upload_abort_keeps_to_its_prefix(s3, mgmt, bucket, names):
    """An AbortIncompleteMultipartUpload rule with a prefix aborts only the uploads whose key is
    under it (S3's lifecycle Filter names the objects, and so the uploads, a rule applies to);
    an upload under another prefix stays. An implementer may filter the expiry by the prefix
    and walk every upload of the bucket."""
    doomed_key, kept_key = "up/" + names.key(), "other/" + names.key()
    doomed = s3.boto.create_multipart_upload(Bucket=bucket, Key=doomed_key)["UploadId"]
    kept = s3.boto.create_multipart_upload(Bucket=bucket, Key=kept_key)["UploadId"]
    put_lifecycle(s3, bucket, lifecycle_xml(prefixed_abort_rule("up", "up/", 1))).assert_ok()
    mgmt.advance_clock(3 * DAY, bucket).assert_envelope_ok()
    s3.wire.request("GET", bucket, doomed_key, query=[("uploadId", doomed)]).assert_error(
        404, "NoSuchUpload"
    )
    s3.wire.request("GET", bucket, kept_key, query=[("uploadId", kept)]).assert_ok()


@pytest.mark.rule("storage.lifecycle.abort-multipart-applied-reference")
def test_rule_with_both_actions_applies_both(s3, mgmt, bucket, names):
    """One rule holding both an Expiration and an AbortIncompleteMultipartUpload (S3 takes
    several actions in a rule) applies both: its objects expire and its uploads are aborted.
    An implementer may apply only the first action a rule holds."""
    key, upload_key = "both/" + names.key(), "both/" + names.key()
    s3.wire.put_object(bucket, key, b"x").assert_ok()
    upload = s3.boto.create_multipart_upload(Bucket=bucket, Key=upload_key)["UploadId"]
    rule = (
        "<Rule><ID>both</ID><Filter><Prefix>both/</Prefix></Filter><Status>Enabled</Status>"
        "<Expiration><Days>1</Days></Expiration><AbortIncompleteMultipartUpload>"
        "<DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>"
    )
    put_lifecycle(s3, bucket, lifecycle_xml(rule)).assert_ok()
    mgmt.advance_clock(3 * DAY, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, key).assert_error(404, "NoSuchKey")
    s3.wire.request("GET", bucket, upload_key, query=[("uploadId", upload)]).assert_error(
        404, "NoSuchUpload"
    )
