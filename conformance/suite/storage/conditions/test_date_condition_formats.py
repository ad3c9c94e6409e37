"""Date conditions written in RFC 9110's obsolete HTTP-date forms (RFC 850, asctime).

RFC 9110 section 5.6.7: a recipient MUST accept all three forms, all GMT. An implementer may
parse IMF-fixdate only (the obsolete forms then read as absent: the condition is ignored), or
read asctime, which has no zone, in the server's local time.
"""

from __future__ import annotations

import datetime as dt
from email.utils import parsedate_to_datetime

import pytest

from conformance.suite.storage.conditions.support import store_dated

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def rfc850(moment: dt.datetime) -> str:
    """`Sunday, 06-Nov-94 08:49:37 GMT` (names spelt here: strftime follows the locale)."""
    day, month = WEEKDAYS[moment.weekday()], MONTHS[moment.month - 1]
    return f"{day}, {moment.day:02d}-{month}-{moment.year % 100:02d} {moment:%H:%M:%S} GMT"


def asctime(moment: dt.datetime) -> str:
    """`Sun Nov  6 08:49:37 1994`: the day padded with a space, no zone (GMT by definition)."""
    day, month = DAYS[moment.weekday()], MONTHS[moment.month - 1]
    return f"{day} {month} {moment.day:2d} {moment:%H:%M:%S} {moment.year}"


FORMATS = {"rfc850": rfc850, "asctime": asctime}


@pytest.fixture
def last_modified(s3, bucket, names):
    key = names.key()
    header = store_dated(s3, bucket, key, b"dated object")
    return bucket, key, parsedate_to_datetime(header).astimezone(dt.UTC)


@pytest.mark.rule("storage.get-object.date-conditions-http-date-formats")
@pytest.mark.parametrize("form", sorted(FORMATS))
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_if_modified_since_at_last_modified_is_304(s3, last_modified, form, method):
    """If-Modified-Since equal to Last-Modified, in the obsolete form: not modified, 304."""
    bucket, key, moment = last_modified
    headers = {"If-Modified-Since": FORMATS[form](moment)}
    reply = s3.wire.request(method, bucket, key, headers=headers)
    assert reply.status == 304, f"{method} {headers}: {reply.status}, not 304"


@pytest.mark.rule("storage.get-object.date-conditions-http-date-formats")
@pytest.mark.parametrize("form", sorted(FORMATS))
def test_if_unmodified_since_a_second_before_is_412(s3, last_modified, form):
    """If-Unmodified-Since one second before Last-Modified, in the obsolete form: 412."""
    bucket, key, moment = last_modified
    headers = {"If-Unmodified-Since": FORMATS[form](moment - dt.timedelta(seconds=1))}
    reply = s3.wire.request("GET", bucket, key, headers=headers)
    reply.assert_error(412, "PreconditionFailed")


@pytest.mark.rule("storage.get-object.date-conditions-http-date-formats")
@pytest.mark.parametrize("form", sorted(FORMATS))
def test_if_modified_since_a_second_before_serves(s3, last_modified, form):
    """If-Modified-Since one second before Last-Modified, in the obsolete form: served."""
    bucket, key, moment = last_modified
    headers = {"If-Modified-Since": FORMATS[form](moment - dt.timedelta(seconds=1))}
    reply = s3.wire.request("GET", bucket, key, headers=headers).assert_ok()
    assert reply.body == b"dated object"


@pytest.mark.rule("storage.get-object.date-conditions-http-date-formats")
def test_a_two_digit_year_less_than_50_years_ahead_is_this_centurys(s3, last_modified):
    """RFC 850 `If-Unmodified-Since` 45 years ahead: RFC 9110 reads its two-digit year in this
    century (not more than 50 years ahead), so the object was not modified since: served. A
    fixed pivot (69-99 as 19xx, as email.utils reads it) puts some of those years 100 years back,
    where the object was modified since: 412."""
    bucket, key, moment = last_modified
    ahead = dt.datetime(moment.year + 45, 1, 1, tzinfo=dt.UTC)
    headers = {"If-Unmodified-Since": rfc850(ahead)}
    reply = s3.wire.request("GET", bucket, key, headers=headers)
    assert reply.status == 200, f"{headers}: {reply.status}, not 200 (year read a century back?)"


@pytest.mark.rule("storage.get-object.date-conditions-http-date-formats")
@pytest.mark.parametrize(("years", "status"), [(50, 200), (51, 412)])
def test_two_digit_year_at_both_sides_of_50_years_ahead(s3, last_modified, years, status):
    """RFC 9110 section 5.6.7: an RFC 850 year that appears MORE than 50 years ahead is the past
    century's. 1 January of this year + 50 is at most 50 years ahead: this century, the object
    was not modified since, 200. 1 January of this year + 51 is more than 50 years ahead: read a
    century back (49 years ago), the object was modified since, 412."""
    bucket, key, moment = last_modified
    ahead = dt.datetime(moment.year + years, 1, 1, tzinfo=dt.UTC)
    headers = {"If-Unmodified-Since": rfc850(ahead)}
    reply = s3.wire.request("GET", bucket, key, headers=headers)
    assert reply.status == status, f"{headers}: {reply.status}, not {status}"


INVALID_DATES = {
    "words": "not a date",
    "day-32": "Sun, 32 Nov 1994 08:49:37 GMT",
    "year-10000": "Sun, 06 Nov 10000 08:49:37 GMT",
    "year-20-digits": "Sun, 06 Nov 99999999999999999999 08:49:37 GMT",
}


@pytest.mark.rule("storage.get-object.date-conditions-http-date-formats")
@pytest.mark.parametrize("header", ["If-Modified-Since", "If-Unmodified-Since"])
@pytest.mark.parametrize("value", list(INVALID_DATES.values()), ids=list(INVALID_DATES))
def test_a_date_condition_in_no_http_date_form_is_ignored(s3, last_modified, header, value):
    """RFC 9110 sections 13.1.3 / 13.1.4: a recipient MUST ignore If-Modified-Since /
    If-Unmodified-Since whose value is not a valid HTTP-date in any of the three forms: the
    object is served, 200 (not 304 / 412, not a 400, and not a 5xx on a year no date type
    holds)."""
    bucket, key, _ = last_modified
    reply = s3.wire.request("GET", bucket, key, headers={header: value})
    assert reply.status == 200, f"{header}: {value!r}: {reply.status}, not 200"
    assert reply.body == b"dated object"
