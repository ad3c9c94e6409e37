"""SigV4 values outside the forms AWS defines, each signed consistently, are refused.

AWS's SigV4 pages fix the form of every value a signature rests on: the request time is ISO 8601
basic (`YYYYMMDD'T'HHMMSS'Z'`, from `x-amz-date`, else an HTTP `Date`), the credential scope is
`date/region/s3/aws4_request`, `x-amz-content-sha256` is a hex SHA-256 or one of the named
keywords, `X-Amz-Expires` a number of seconds. An implementer who reads such a value leniently
(a month 13, a sign in a field, a scope with a part more, a hash that is a word) lets through
what a signer never meant, or answers a 5xx. Each request here is signed over the malformed
value itself, so that only the form decides: a 4xx, nothing written, nothing served. The
accepted side: a URL sent in another, equivalent percent-encoding of its canonical form, and a
presigned URL's lifetime counted from every field of its X-Amz-Date.
"""

from __future__ import annotations

import datetime as dt
import email.utils
from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance.clients import s3_sign
from conformance.clients.s3_wire import PreparedWire
from conformance.suite.storage.auth.presigned_get import check_lifetime

RULE = "storage.auth.signed-forms-accepted"


WEEK = 604_800


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def _malformed_dates(now: dt.datetime) -> dict[str, str]:
    """x-amz-date texts for `now` that are not ISO 8601 basic, by what is wrong."""
    return {
        "month-13": f"{now:%Y}13{now:%dT%H%M%S}Z",
        "x-for-t": f"{now:%Y%m%d}X{now:%H%M%S}Z",
        "x-for-z": f"{now:%Y%m%dT%H%M%S}X",
        "trailing-digit": f"{now:%Y%m%dT%H%M%S}Z0",
        "extended": f"{now:%Y-%m-%dT%H:%M:%S}Z",
        "word": "yesterday",
        # 15 characters a strptime-style reader takes (`%S` of one digit), within a minute of now
        "one-digit-second": f"{now:%Y%m%dT%H%M}5Z",
    }


def _put_refused(s3: Any, bucket: str, names: Any, what: str, **sign: Any) -> None:
    """A PUT signed by hand with `sign` (headers, stamp, scope...): a 4xx, nothing written."""
    key = names.key()
    headers = sign.pop("headers")
    prepared = s3_sign.sign(s3.wire, "PUT", s3.wire.url(bucket, key), headers, body=b"x", **sign)
    reply = s3.wire.send(prepared)
    assert 400 <= reply.status < 500, f"{what}: {reply.describe()}"
    assert s3.wire.request("HEAD", bucket, key).status == 404, f"{what}: the object was written"


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("form", list(_malformed_dates(dt.datetime(2000, 1, 1))))
def test_malformed_x_amz_date_is_refused(s3, bucket, names, form):
    """An x-amz-date that is not `YYYYMMDD'T'HHMMSS'Z'` (a month 13, X for T or for Z, a digit
    after Z, the extended form, a word, a one-digit second), the scope dated with its first 8
    characters and the request signed over it: a 4xx (AWS: AccessDenied, a valid date is
    required), nothing written."""
    now = _now()
    stamp = _malformed_dates(now)[form]
    _put_refused(
        s3, bucket, names, f"x-amz-date {stamp!r}", headers={"x-amz-date": stamp},
        timestamp=now, stamp=stamp, credential_date=stamp[:8],
    )  # fmt: skip


@pytest.mark.rule(RULE)
@pytest.mark.parametrize(
    "date",
    [None, "not a date", "Sat, 28 Nov 100000000000000000000 12:00:00 GMT"],
    ids=["no-date-at-all", "date-a-phrase", "date-year-out-of-range"],
)
def test_request_without_a_valid_date_is_refused(s3, bucket, names, date):
    """No x-amz-date, and no `Date` or one that is not an HTTP date (a phrase, a year of 21
    digits): the request has no time to check; a 4xx, not a 5xx, nothing written."""
    headers = {} if date is None else {"Date": date}
    _put_refused(s3, bucket, names, f"Date {date!r}", headers=headers, timestamp=_now())


@pytest.mark.rule(RULE)
def test_scope_date_other_than_the_date_header_is_refused(s3, bucket, names):
    """No x-amz-date: the `Date` header dates the request, and the credential scope's date must
    be its day (AWS: "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of
    date from HTTP"). A scope dated the day before, the key derived from it and the request
    signed with it: a 4xx, nothing written."""
    now = _now()
    headers = {"Date": email.utils.format_datetime(now, usegmt=True)}
    day_before = f"{now - dt.timedelta(days=1):%Y%m%d}"
    _put_refused(
        s3, bucket, names, f"scope date {day_before} with Date {headers['Date']!r}",
        headers=headers, timestamp=now, credential_date=day_before,
    )  # fmt: skip


@pytest.mark.rule(RULE)
@pytest.mark.parametrize(
    "tail",
    ["s4/aws4_request", "s3/aws4_request/extra", "s3/aws5_request", "s3"],
    ids=["other-service", "part-more", "other-terminator", "part-less"],
)
def test_credential_scope_of_another_form_is_refused(s3, bucket, names, tail):
    """A credential scope that is not `date/region/s3/aws4_request` (another service, a part
    more, another terminator, a part less), written in the header and in the string to sign:
    malformed (AWS: AuthorizationHeaderMalformed), a 4xx, nothing written."""
    now = _now()
    scope = f"{now:%Y%m%d}/{s3.wire.region}/{tail}"
    _put_refused(
        s3, bucket, names, f"scope {scope!r}", headers={"x-amz-date": f"{now:%Y%m%dT%H%M%SZ}"},
        timestamp=now, scope=scope,
    )  # fmt: skip


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("value", ["not-a-payload-hash", "z" * 64], ids=["word", "64-non-hex"])
def test_payload_hash_of_no_defined_form_is_refused(s3, bucket, names, value):
    """A GetObject whose x-amz-content-sha256 is neither a hex SHA-256 nor one of the keywords
    AWS defines (UNSIGNED-PAYLOAD, STREAMING-...), signed with it: a 4xx, the object not
    served (a GET has no body whose hash could refuse it later)."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    now = _now()
    headers = {"x-amz-date": f"{now:%Y%m%dT%H%M%SZ}"}
    url = s3.wire.url(bucket, key)
    reply = s3.wire.send(s3_sign.sign(s3.wire, "GET", url, headers, timestamp=now,
                                      payload_hash=value))  # fmt: skip
    assert 400 <= reply.status < 500, f"x-amz-content-sha256 {value!r}: {reply.describe()}"
    assert reply.body != b"secret", "the object was served"


def _presigned_refused(s3: Any, bucket: str, names: Any, what: str, **presign: Any) -> None:
    key = names.key()
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    url = s3_sign.presign(s3.wire, "GET", s3.wire.url(bucket, key), **presign)
    reply = s3.wire.send(PreparedWire("GET", url))
    assert 400 <= reply.status < 500, f"{what}: {reply.describe()}"
    assert reply.body != b"secret", f"{what}: the object was served"


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("expires", ["soon", "-1", "60.5", "+60"])
def test_presigned_url_with_a_malformed_expires_is_refused(
    s3, bucket, names, expires, presigned_in_force
):
    """X-Amz-Expires that is not a number of seconds (a word, a sign, a fraction), signed:
    AWS's query-string page makes it an integer; a 4xx (AuthorizationQueryParametersError),
    not a 5xx, not the object."""
    _presigned_refused(
        s3, bucket, names, f"X-Amz-Expires {expires!r}", timestamp=_now(), expires=expires
    )


@pytest.mark.rule(RULE)
@pytest.mark.parametrize(
    "form",
    [
        "month-13",
        "x-for-t",
        "sign-in-hour",
        "space-in-second",
        "fullwidth-digits",
        "one-digit-second",
    ],
)
def test_presigned_url_with_a_malformed_date_is_refused(
    s3, bucket, names, form, presigned_in_force
):
    """X-Amz-Date not in ISO 8601 basic form, signed, with a week's X-Amz-Expires: a month 13,
    X for T, or yesterday's 01:00 written as a lax integer parse still reads it (a sign in the
    hour `T+10000Z`, a space in the seconds `T01000 Z`, fullwidth digits, one digit of seconds
    `T01000Z`). A 4xx, not a 5xx,
    not the object."""
    now = _now()
    yesterday = now - dt.timedelta(days=1)
    fullwidth = str.maketrans("0123456789", "".join(chr(0xFF10 + d) for d in range(10)))
    stamp = {
        "month-13": _malformed_dates(now)["month-13"],
        "x-for-t": _malformed_dates(now)["x-for-t"],
        "sign-in-hour": f"{yesterday:%Y%m%d}T+10000Z",
        "space-in-second": f"{yesterday:%Y%m%d}T01000 Z",
        "fullwidth-digits": f"{yesterday:%Y%m%dT010000Z}".translate(fullwidth),
        "one-digit-second": f"{yesterday:%Y%m%d}T01000Z",
    }[form]
    _presigned_refused(
        s3, bucket, names, f"X-Amz-Date {stamp!r}", timestamp=now, stamp=stamp,
        credential_date=stamp[:8], expires=WEEK,
    )  # fmt: skip


def _signed_at_a_late_minute(now: dt.datetime) -> dt.datetime:
    """A moment 2 to 6 days before `now` at 23:59:59 whose day of the month has two different
    digits, neither 0: reading any one digit of its X-Amz-Date alone (day, hour, minute) moves
    it back by at least 50 minutes."""
    for days in range(2, 7):
        moment = (now - dt.timedelta(days=days)).replace(hour=23, minute=59, second=59)
        tens, units = divmod(moment.day, 10)
        if tens and units and tens != units:
            return moment
    raise AssertionError(f"no such day in the 6 before {now:%Y-%m-%d}")  # 5 days in a row


@pytest.mark.rule("storage.auth.presigned-expired")
@pytest.mark.parametrize(("margin", "valid"), [(-600, False), (600, True)],
                         ids=["expired-10-min-ago", "valid-10-min-more"])  # fmt: skip
def test_expiry_counts_from_every_field_of_x_amz_date(s3, bucket, names, margin, valid):
    """A URL signed days ago at 23:59:59 whose X-Amz-Expires ends 10 minutes before or after
    now: served only in the second case. Its lifetime counts from the whole X-Amz-Date (day,
    hour, minute; AWS's SigV4 query-string page): a misread field moves the end by 50 minutes
    or more. Ten minutes from either side: no clock skew decides it."""
    now = _now()
    signed_at = _signed_at_a_late_minute(now)
    expires = int((now - signed_at).total_seconds()) + margin
    assert 0 < expires <= WEEK, expires
    check_lifetime(s3, bucket, names.key(), signed_at, expires, valid)


@pytest.mark.rule(RULE)
def test_query_sent_with_raw_sub_delimiters_is_accepted(s3, bucket, names):
    """A ListObjectsV2 whose `prefix` `k!(x)` is sent with `!`, `(` and `)` unescaped (RFC 3986
    allows them in a query) and signed over the canonical query AWS defines (each name and value
    URI-encoded: `k%21%28x%29`): accepted, and the prefix is `k!(x)`."""
    key = f"{names.key()}!(x)"
    s3.wire.put_object(bucket, key, b"x").assert_ok()
    now = _now()
    url = f"{s3.wire.url(bucket)}?list-type=2&prefix={key}"
    canonical = urlsplit(s3.wire.url(bucket, query=[("list-type", "2"), ("prefix", key)])).query
    assert "%21%28x%29" in canonical, canonical
    prepared = s3_sign.sign(
        s3.wire, "GET", url, {"x-amz-date": f"{now:%Y%m%dT%H%M%SZ}"}, timestamp=now,
        canonical_query=canonical,
    )  # fmt: skip
    reply = s3.wire.send(prepared).assert_ok()
    assert f"<Key>{key}</Key>".encode() in reply.body, reply.body[:400]


@pytest.mark.rule(RULE)
def test_path_sent_with_raw_sub_delimiters_is_accepted(s3, bucket, names):
    """A PutObject whose key `k!(x)` is sent with `!`, `(` and `)` unescaped (RFC 3986 allows
    them in a path) and signed over the canonical path AWS defines (`k%21%28x%29`): accepted,
    and the object is `k!(x)`."""
    key = f"{names.key()}!(x)"
    canonical = urlsplit(s3.wire.url(bucket, key)).path
    assert "%21%28x%29" in canonical, canonical
    url = f"{s3.wire.url(bucket)}/{key}"
    now = _now()
    prepared = s3_sign.sign(
        s3.wire, "PUT", url, {"x-amz-date": f"{now:%Y%m%dT%H%M%SZ}"}, timestamp=now,
        body=b"raw", canonical_path=canonical,
    )  # fmt: skip
    s3.wire.send(prepared).assert_ok()
    assert s3.wire.get_object(bucket, key).assert_ok().body == b"raw"
