"""SigV4 forms botocore does not send but AWS's SigV4 pages define: each is read as AWS reads it.

An implementer who parses only what one SDK sends refuses other clients' valid requests:
an Authorization header whose components are separated by `,` alone (AWS's own S3 example
mixes `, ` and `,`; several SDKs send no space), a signed header value holding runs of spaces
(the canonical form trims it and collapses each run to one space), a `Date` header in place of
`x-amz-date`. Two refusals complete it: `x-amz-date` wins over a stale `Date` when both are
sent, and a credential scope dated another day than the request is refused however
consistently it was signed.
"""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime
from typing import Any

import pytest

from conformance.clients import s3_sign
from conformance.clients.s3_raw import send_header_lines
from conformance.clients.s3_wire import PreparedWire

RULE = "storage.auth.signed-forms-accepted"


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


@pytest.mark.rule(RULE)
def test_authorization_without_spaces_after_commas_is_accepted(s3, bucket):
    """`Credential=...,SignedHeaders=...,Signature=...` (no spaces) is the same header."""
    prepared = s3.wire.prepare("GET", bucket, query=[("list-type", "2")])
    auth = prepared.headers["Authorization"]
    prepared.headers["Authorization"] = auth.replace(", ", ",")
    assert prepared.headers["Authorization"] != auth, auth
    s3.wire.send(prepared).assert_ok()


@pytest.mark.rule(RULE)
def test_signed_header_with_runs_of_spaces_is_accepted(s3, bucket, names):
    """A signed value `a   b    c` is canonicalised as `a b c` (trimall); the PUT succeeds."""
    key = names.key()
    header = s3.wire.vendor("meta-spaced")
    prepared = s3.wire.prepare("PUT", bucket, key, headers={header: "a   b    c"}, body=b"x")
    s3.wire.send(prepared).assert_ok()
    s3.wire.request("HEAD", bucket, key).assert_ok()


@pytest.mark.rule(RULE)
def test_date_header_in_place_of_x_amz_date_is_accepted(s3, bucket):
    """Signed with `Date` (RFC 7231 form) and no `x-amz-date`: the request is accepted."""
    now = _now()
    url = s3.wire.url(bucket, query=[("list-type", "2")])
    headers = {"Date": format_datetime(now, usegmt=True)}
    s3.wire.send(s3_sign.sign(s3.wire, "GET", url, headers, timestamp=now)).assert_ok()


@pytest.mark.rule(RULE)
def test_x_amz_date_wins_over_a_stale_date_header(s3, bucket):
    """With both headers, the signature's time is `x-amz-date`; a day-old `Date` is ignored."""
    now = _now()
    stale = now - dt.timedelta(days=1)
    url = s3.wire.url(bucket, query=[("list-type", "2")])
    headers = {
        "x-amz-date": now.strftime("%Y%m%dT%H%M%SZ"),
        "Date": format_datetime(stale, usegmt=True),
    }
    s3.wire.send(s3_sign.sign(s3.wire, "GET", url, headers, timestamp=now)).assert_ok()


@pytest.mark.rule(RULE)
def test_credential_dated_another_day_is_refused(s3, bucket, names):
    """A scope dated the day before `x-amz-date`, signed with that day's key: a 4xx, no write."""
    now = _now()
    key = names.key()
    url = s3.wire.url(bucket, key)
    headers = {"x-amz-date": now.strftime("%Y%m%dT%H%M%SZ")}
    yesterday = (now - dt.timedelta(days=1)).strftime("%Y%m%d")
    prepared = s3_sign.sign(
        s3.wire, "PUT", url, headers, timestamp=now, credential_date=yesterday, body=b"x"
    )
    reply = s3.wire.send(prepared)
    assert 400 <= reply.status < 500, f"credential dated {yesterday}: {reply.describe()}"
    assert s3.wire.request("HEAD", bucket, key).status == 404, "the object was written"


@pytest.mark.rule(RULE)
def test_authorization_without_host_signed_is_refused(s3, bucket, names):
    """Header auth whose SignedHeaders leaves out `host`, otherwise consistently signed: AWS's
    header-based SigV4 page has the canonical headers include the HTTP host header (as its
    query-string page does for presigned URLs); a 4xx, no write. Its twin with `host` signed
    is accepted."""
    now = _now()
    key = names.key()
    url = s3.wire.url(bucket, key)
    headers = {"x-amz-date": now.strftime("%Y%m%dT%H%M%SZ")}
    unsigned = s3_sign.sign(s3.wire, "PUT", url, headers, timestamp=now, body=b"x", sign_host=False)
    reply = s3.wire.send(unsigned)
    assert 400 <= reply.status < 500, f"host not signed: {reply.describe()}"
    assert s3.wire.request("HEAD", bucket, key).status == 404, "the object was written"
    s3.wire.send(s3_sign.sign(s3.wire, "PUT", url, headers, timestamp=now, body=b"x")).assert_ok()


@pytest.mark.rule(RULE)
def test_unsigned_x_amz_meta_header_added_to_a_signed_put_is_refused(s3, bucket, names):
    """A header-signed PUT sent with an `x-amz-meta-*` header added after signing: AWS's
    header-based SigV4 page has every x-amz-* header the request carries signed (S3 answers
    403 AccessDenied, HeadersNotSigned), user metadata included; a 4xx, nothing stored. An
    implementer may exempt metadata headers, which lets anyone on the path add metadata."""
    key = names.key()
    prepared = s3.wire.prepare("PUT", bucket, key, body=b"signed body")
    prepared.headers[s3.wire.vendor("meta-added")] = "after signing"
    reply = s3.wire.send(prepared)
    assert 400 <= reply.status < 500, f"unsigned metadata header: {reply.describe()}"
    assert s3.wire.request("HEAD", bucket, key).status == 404, "the object was written"


@pytest.mark.rule(RULE)
def test_presigned_credential_dated_another_day_is_refused(s3, bucket, names, presigned_in_force):
    """A presigned GET whose scope is dated the day before X-Amz-Date: a 4xx, no body."""
    now = _now()
    yesterday = (now - dt.timedelta(days=1)).strftime("%Y%m%d")
    _presigned_get_refused(
        s3, bucket, names, f"credential dated {yesterday}", timestamp=now,
        credential_date=yesterday,
    )  # fmt: skip


@pytest.mark.rule(RULE)
def test_presigned_url_signed_by_hand_is_accepted(s3, bucket, names, presigned_in_force):
    """The same URL dated consistently is accepted: the refusal above is the date's doing."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    url = s3_sign.presign(s3.wire, "GET", s3.wire.url(bucket, key), timestamp=_now())
    assert s3.wire.send(PreparedWire("GET", url)).assert_ok().body == b"secret"


@pytest.mark.rule(RULE)
def test_query_sent_out_of_order_is_accepted(s3, bucket):
    """Query parameters sent unsorted, one value holding a space, `~` and `+`: the canonical
    query sorts and encodes them, so the signature holds."""
    query = [("prefix", "a b~c+d"), ("max-keys", "5"), ("list-type", "2")]
    s3.wire.request("GET", bucket, query=query).assert_ok()


@pytest.mark.rule(RULE)
def test_unsigned_x_amz_header_added_to_a_presigned_put_is_refused(
    s3, bucket, names, presigned_in_force
):
    """A presigned PUT sent with an unsigned `x-amz-copy-source` naming another object: AWS
    refuses x-amz-* headers left out of SignedHeaders (HeadersNotSigned); it never becomes a
    copy of that object."""
    source, key = names.key(), names.key()
    s3.wire.put_object(bucket, source, b"secret source").assert_ok()
    url = s3.wire.presign("PUT", bucket, key)
    header = s3.wire.vendor("copy-source")
    reply = s3.wire.send(PreparedWire("PUT", url, {header: f"/{bucket}/{source}"}, b"sent"))
    assert 400 <= reply.status < 500, f"unsigned {header}: {reply.describe()}"
    got = s3.wire.get_object(bucket, key)
    assert got.status == 404, f"the PUT stored {got.body[:40]!r}"


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("hours", [-1, 1], ids=["an-hour-ago", "in-an-hour"])
def test_request_dated_an_hour_away_is_refused(s3, bucket, names, hours):
    """A request signed consistently for an hour ago or an hour ahead: AWS refuses one more
    than 15 minutes from its clock (RequestTimeTooSkewed); a 4xx and nothing written."""
    key = names.key()
    moment = _now() + dt.timedelta(hours=hours)
    headers = {"x-amz-date": moment.strftime("%Y%m%dT%H%M%SZ")}
    url = s3.wire.url(bucket, key)
    prepared = s3_sign.sign(s3.wire, "PUT", url, headers, timestamp=moment, body=b"x")
    reply = s3.wire.send(prepared)
    assert 400 <= reply.status < 500, f"dated {moment:%H:%M} UTC: {reply.describe()}"
    assert s3.wire.request("HEAD", bucket, key).status == 404, "the object was written"


@pytest.mark.rule(RULE)
def test_presigned_url_dated_an_hour_ahead_is_refused(s3, bucket, names, presigned_in_force):
    """A presigned GET whose X-Amz-Date is an hour ahead is not valid yet: a 4xx, no body."""
    ahead = _now() + dt.timedelta(hours=1)
    _presigned_get_refused(s3, bucket, names, "dated an hour ahead", timestamp=ahead)


def _presigned_get_refused(
    s3, bucket, names, what: str, headers: dict[str, str] | None = None, **presign: Any
) -> None:
    """A presigned GET of a fresh object, signed by hand with `presign` and sent with
    `headers`: a 4xx, no body."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    url = s3_sign.presign(s3.wire, "GET", s3.wire.url(bucket, key), **presign)
    reply = s3.wire.send(PreparedWire("GET", url, headers or {}))
    assert 400 <= reply.status < 500, f"{what}: {reply.describe()}"
    assert reply.body != b"secret", "the object was served"


@pytest.mark.rule(RULE)
def test_presigned_url_without_host_signed_is_refused(s3, bucket, names, presigned_in_force):
    """A presigned GET whose X-Amz-SignedHeaders leaves out `host` (it signs another header):
    AWS's SigV4 query-string page has `host` signed always (a URL not bound to its host can be
    replayed elsewhere); a 4xx, no body. Its twin with `host` signed too is accepted."""
    probe = {"x-ec-probe": "one"}
    _presigned_get_refused(
        s3, bucket, names, "host not signed", timestamp=_now(), signed=probe, sign_host=False,
        headers=probe,
    )  # fmt: skip
    key = names.key()
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    url = s3_sign.presign(s3.wire, "GET", s3.wire.url(bucket, key), timestamp=_now(), signed=probe)
    assert s3.wire.send(PreparedWire("GET", url, probe)).assert_ok().body == b"secret"


@pytest.mark.rule(RULE)
def test_presigned_url_without_expires_is_refused(s3, bucket, names, presigned_in_force):
    """A presigned GET without X-Amz-Expires, otherwise consistently signed: AWS's SigV4
    query-string page requires it (AuthorizationQueryParametersError); a 4xx, not a 5xx or the
    object served without a lifetime."""
    _presigned_get_refused(s3, bucket, names, "no X-Amz-Expires", timestamp=_now(), expires=None)


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("algorithm", [None, "AWS4-ECDSA-P256-SHA256"], ids=["none", "other"])
def test_presigned_url_without_the_sigv4_algorithm_is_refused(
    s3, bucket, names, algorithm, presigned_in_force
):
    """A presigned GET whose X-Amz-Algorithm is missing, or names another algorithm (SigV4a's),
    otherwise signed as SigV4 (the parameter signed over, as sent): AWS's SigV4 query-string
    page requires X-Amz-Algorithm and sets it to AWS4-HMAC-SHA256 for SigV4; a 4xx, no body."""
    _presigned_get_refused(
        s3, bucket, names, f"X-Amz-Algorithm {algorithm!r}", timestamp=_now(), algorithm=algorithm
    )


@pytest.mark.rule(RULE)
def test_header_signed_over_its_first_line_only_is_refused(s3, bucket, names):
    """A signed header sent as two field lines, `one` then `two`, whose signature covers only
    the first (`x-ec-probe:one`): SigV4's canonical headers join the values of a multi-value
    header with commas (AWS's "Create a signed AWS API request" page; the SigV4 test suite's
    get-header-key-duplicate), so the value signed is `one,two` (or, behind a front that joins
    the lines itself, `one, two`) and this signature does not match: a 4xx, no body. A server
    that canonicalises the first line alone accepts a request whose second line nobody signed."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    prepared = s3.wire.prepare("GET", bucket, key, headers={"x-ec-probe": "one"})
    reply = send_header_lines(s3.wire, prepared, "x-ec-probe", ["one", "two"])
    assert 400 <= reply.status < 500, f"second line unsigned: {reply.describe()}"
    assert reply.body != b"secret", "the object was served"


@pytest.mark.rule(RULE)
def test_presigned_url_signs_its_other_query_parameters(s3, bucket, names, presigned_in_force):
    """A presigned GET carrying `response-content-type`: the canonical query signs every
    parameter, not only the X-Amz-* ones, so the URL is served with that type, and the same
    URL with the value changed after signing is refused (a 4xx, not the object)."""
    key = names.key()
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    signed = s3.wire.url(bucket, key) + "?response-content-type=text%2Fx-ec-signed"
    url = s3_sign.presign(s3.wire, "GET", signed, timestamp=_now())
    reply = s3.wire.send(PreparedWire("GET", url)).assert_ok()
    assert reply.body == b"secret" and reply.header("content-type") == "text/x-ec-signed"
    tampered = url.replace("x-ec-signed", "x-ec-altered")
    changed = s3.wire.send(PreparedWire("GET", tampered))
    assert 400 <= changed.status < 500, f"changed after signing: {changed.describe()}"
    assert changed.body != b"secret", "the object was served"
