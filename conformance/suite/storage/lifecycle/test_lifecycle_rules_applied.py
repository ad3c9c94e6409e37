"""Lifecycle rules applied on the reference's clock, at their boundaries (reference-only).

S3 expires an object at the first midnight UTC at or after LastModified + Days. An implementer
may expire at LastModified + Days itself, count from now instead of the object's time, apply
a rule whose Status is Disabled, or apply a rule outside its prefix. Each case moves only its
own bucket's clock (the reference keeps one per bucket, so tests in other buckets never see
time jump); a clock only moves forward, so a case reads where it is before each move.
"""

from __future__ import annotations

import datetime as dt
import math
from email.utils import parsedate_to_datetime

import pytest

from conformance.suite.setup_check import not_checked

from .test_lifecycle_config import DAY, expire_rule, lifecycle_xml, put_lifecycle

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
    """Past LastModified + Days but before the next midnight UTC: kept; past it: expired."""
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
