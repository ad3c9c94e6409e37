"""onlyIf in each form: on a missing object, by upload time, as Headers, and as ETag strings.

The provider's Workers R2 reference: put() with an onlyIf that fails stores nothing and returns
null; get() with one that fails returns the object without its body. R2Conditional holds
etagMatches / etagDoesNotMatch / uploadedBefore / uploadedAfter; onlyIf may also be a Headers
object (If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since). On a key with no object,
an ETag that must match fails and one that must not match holds (the provider's conditional
operations page: If-Match fails, If-None-Match succeeds when the key does not exist), and so
does a condition on a time after which it was uploaded (If-Modified-Since fails there). The
times here are a day away from the object's own upload time, so no clock or rounding decides
them; the HTTP dates one second away name the second before or after the upload's own (an HTTP
date has whole seconds, RFC 9110 5.6.7), so the upload lies 1-2 s after or 0-1 s before the
named moment, strictly, whatever the resolution of the upload time.
"""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime
from typing import Any

import pytest

from conformance.clients.bindings import body_of

DAY = dt.timedelta(days=1)
HOUR = dt.timedelta(hours=1)
SECOND = dt.timedelta(seconds=1)
OTHER = "0" * 32


def _uploaded(doc: dict[str, Any]) -> dt.datetime:
    moment = dt.datetime.fromisoformat(str(doc["uploaded"]).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _http(moment: dt.datetime) -> str:
    return format_datetime(moment.astimezone(dt.UTC), usegmt=True)


@pytest.mark.rule("storage.bindings.put-only-if")
def test_put_on_missing_key_by_etag(bindings: Any, names: Any) -> None:
    """On a key with no object: etagMatches fails (null, nothing stored); etagDoesNotMatch of
    any ETag holds (the object is stored)."""
    key = names.key()
    assert bindings.put(key, b"x", onlyIf={"etagMatches": OTHER}).value() is None
    assert bindings.head(key).value() is None
    assert bindings.put(key, b"y", onlyIf={"etagDoesNotMatch": OTHER}).value() is not None
    assert body_of(bindings.get(key).value()) == b"y"


@pytest.mark.rule("storage.bindings.put-only-if")
def test_put_on_missing_key_by_headers(bindings: Any, names: Any) -> None:
    """The same as Headers: If-Match fails on a missing key, If-None-Match holds."""
    key = names.key()
    assert bindings.put(key, b"x", onlyIf={"headers": {"If-Match": f'"{OTHER}"'}}).value() is None
    assert bindings.head(key).value() is None
    done = bindings.put(key, b"y", onlyIf={"headers": {"If-None-Match": f'"{OTHER}"'}}).value()
    assert done is not None
    assert body_of(bindings.get(key).value()) == b"y"


@pytest.mark.rule("storage.bindings.put-only-if")
@pytest.mark.parametrize("form", ["uploadedAfter", "If-Modified-Since"])
def test_put_on_missing_key_modified_since(bindings: Any, names: Any, form: str) -> None:
    """On a key with no object, uploadedAfter (If-Modified-Since as Headers) fails, whatever the
    date: no object was uploaded after it (the provider's conditional operations page:
    If-Modified-Since fails when the key does not exist). Nothing is stored."""
    key = names.key()
    long_ago = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
    only_if: dict[str, Any] = (
        {"uploadedAfter": _iso(long_ago)}
        if form == "uploadedAfter"
        else {"headers": {"If-Modified-Since": _http(long_ago)}}
    )
    assert bindings.put(key, b"x", onlyIf=only_if).value() is None, form
    assert bindings.head(key).value() is None, f"{form}: written on a missing key"


@pytest.mark.rule("storage.bindings.put-only-if")
def test_put_if_modified_since_its_own_last_modified(bindings: Any, names: Any) -> None:
    """If-Modified-Since naming the object's own Last-Modified (its upload time in whole
    seconds, as an HTTP date) is unmet: RFC 9110 section 13.1.3, false when the last
    modification is earlier than or equal to the date; the put writes nothing."""
    key = names.key()
    first = bindings.put(key, b"old").value()
    own = _http(_uploaded(first).replace(microsecond=0))
    result = bindings.put(key, b"new", onlyIf={"headers": {"If-Modified-Since": own}}).value()
    assert result is None, f"If-Modified-Since {own} (its own Last-Modified) wrote: {result!r}"
    assert body_of(bindings.get(key).value()) == b"old"


@pytest.mark.rule("storage.bindings.put-only-if")
def test_put_by_etag_on_existing_object(bindings: Any, names: Any) -> None:
    """On an existing object: etagDoesNotMatch of its own ETag fails, of another holds; as
    Headers, If-None-Match of its ETag fails and If-Match of it holds."""
    key = names.key()
    etag = str(bindings.put(key, b"v1").value()["etag"])
    assert bindings.put(key, b"no", onlyIf={"etagDoesNotMatch": etag}).value() is None
    quoted = f'"{etag}"'
    assert bindings.put(key, b"no", onlyIf={"headers": {"If-None-Match": quoted}}).value() is None
    assert body_of(bindings.get(key).value()) == b"v1"
    assert bindings.put(key, b"v2", onlyIf={"etagDoesNotMatch": OTHER}).value() is not None
    etag2 = str(bindings.head(key).value()["etag"])
    done = bindings.put(key, b"v3", onlyIf={"headers": {"If-Match": f'"{etag2}"'}}).value()
    assert done is not None
    assert body_of(bindings.get(key).value()) == b"v3"


@pytest.mark.rule("storage.bindings.put-only-if")
@pytest.mark.parametrize(
    ("condition", "shift", "met"),
    [
        ("uploadedAfter", -DAY, True),
        ("uploadedAfter", DAY, False),
        ("uploadedBefore", DAY, True),
        ("uploadedBefore", -DAY, False),
    ],
    ids=["after-yesterday", "after-tomorrow", "before-tomorrow", "before-yesterday"],
)
def test_put_by_upload_time(
    bindings: Any, names: Any, condition: str, shift: dt.timedelta, met: bool
) -> None:
    """uploadedAfter / uploadedBefore a day from the object's upload time: the put writes only
    when the object was uploaded after / before that moment."""
    key = names.key()
    first = bindings.put(key, b"old").value()
    moment = _iso(_uploaded(first) + shift)
    result = bindings.put(key, b"new", onlyIf={condition: moment}).value()
    assert (result is not None) == met, f"{condition} {moment}: {result!r}"
    assert body_of(bindings.get(key).value()) == (b"new" if met else b"old")


@pytest.mark.rule("storage.bindings.put-only-if")
@pytest.mark.parametrize("condition", ["uploadedAfter", "uploadedBefore"])
def test_put_by_upload_time_with_an_offset(bindings: Any, names: Any, condition: str) -> None:
    """A date given in ISO 8601 with a +14:00 offset is that instant: uploadedAfter an hour
    before the upload, and uploadedBefore an hour after it, both hold (read as UTC wall time
    they would be 13 hours off)."""
    key = names.key()
    first = bindings.put(key, b"old").value()
    shift = -HOUR if condition == "uploadedAfter" else HOUR
    moment = (_uploaded(first) + shift).astimezone(dt.timezone(dt.timedelta(hours=14)))
    text = moment.isoformat(timespec="milliseconds")
    assert bindings.put(key, b"new", onlyIf={condition: text}).value() is not None, text
    assert body_of(bindings.get(key).value()) == b"new"


@pytest.mark.rule("storage.bindings.put-only-if")
@pytest.mark.parametrize(
    ("header", "shift", "met"),
    [
        ("If-Modified-Since", -DAY, True),
        ("If-Modified-Since", DAY, False),
        ("If-Unmodified-Since", DAY, True),
        ("If-Unmodified-Since", -DAY, False),
        ("If-Modified-Since", -SECOND, True),
        ("If-Modified-Since", SECOND, False),
        ("If-Unmodified-Since", SECOND, True),
        ("If-Unmodified-Since", -SECOND, False),
    ],
    ids=["modified-since-yesterday", "modified-since-tomorrow", "unmodified-since-tomorrow",
         "unmodified-since-yesterday", "modified-since-second-before",
         "modified-since-second-after", "unmodified-since-second-after",
         "unmodified-since-second-before"],
)  # fmt: skip
def test_put_by_date_headers(
    bindings: Any, names: Any, header: str, shift: dt.timedelta, met: bool
) -> None:
    """The date conditions as Headers (HTTP dates), a day or a second from the object's upload
    time. A second before: the HTTP date names the second before the upload's, so the object was
    modified after it (RFC 9110 13.1.3 / 13.1.4: Unmodified-Since fails, Modified-Since holds)."""
    key = names.key()
    first = bindings.put(key, b"old").value()
    moment = _http(_uploaded(first) + shift)
    result = bindings.put(key, b"new", onlyIf={"headers": {header: moment}}).value()
    assert (result is not None) == met, f"{header}: {moment}: {result!r}"
    assert body_of(bindings.get(key).value()) == (b"new" if met else b"old")


@pytest.mark.rule("storage.bindings.conditional-strong-list")
def test_etag_lists_with_irregular_spacing(bindings: Any, names: Any) -> None:
    """If-Match / If-None-Match lists with the object's ETag first or last, spaces around the
    commas or none: any member counts. An R2Conditional etagMatches of the bare ETag is met."""
    key = names.key()
    etag = str(bindings.put(key, b"listed").value()["etag"])
    for listed in (f'"{etag}",  "{OTHER}"', f'"{OTHER}","{etag}"'):
        got = bindings.get(key, onlyIf={"headers": {"If-Match": listed}}).value()
        assert body_of(got) == b"listed", listed
        refused = bindings.get(key, onlyIf={"headers": {"If-None-Match": listed}}).value()
        assert refused is not None and "body" not in refused, (listed, refused)
    plain = bindings.get(key, onlyIf={"etagMatches": etag}).value()
    assert body_of(plain) == b"listed"
    unmet = bindings.get(key, onlyIf={"etagMatches": OTHER}).value()
    assert unmet is not None and "body" not in unmet, unmet


@pytest.mark.rule("storage.bindings.conditional-wildcard")
def test_wildcard_on_missing_key_put(bindings: Any, names: Any) -> None:
    """put() with If-None-Match `*` writes a key that has no object, and not one that has."""
    key = names.key()
    star = {"headers": {"If-None-Match": "*"}}
    assert bindings.put(key, b"first", onlyIf=star).value() is not None
    assert bindings.put(key, b"second", onlyIf=star).value() is None
    assert body_of(bindings.get(key).value()) == b"first"


@pytest.mark.rule("storage.bindings.conditional-etag-precedence")
@pytest.mark.parametrize("form", ["R2Conditional", "Headers"])
@pytest.mark.parametrize("pair", ["match-over-before", "no-match-over-after"])
def test_etag_condition_that_holds_overrides_its_time_condition(
    bindings: Any, names: Any, form: str, pair: str
) -> None:
    """etagMatches (If-Match) of the object's ETag with uploadedBefore (If-Unmodified-Since) a
    day before its upload, or etagDoesNotMatch (If-None-Match) of another ETag with
    uploadedAfter (If-Modified-Since) a day after it: the ETag condition holds, so the time
    condition is not evaluated (RFC 9110 13.2.2; miniflare's R2 validator tests, adapted from
    R2's gateway tests) and both put() and get() proceed. The time alone fails."""
    key = names.key()
    first = bindings.put(key, b"old").value()
    etag, uploaded = str(first["etag"]), _uploaded(first)
    only_if: dict[str, Any]
    if pair == "match-over-before":
        only_if = (
            {"etagMatches": etag, "uploadedBefore": _iso(uploaded - DAY)}
            if form == "R2Conditional"
            else {
                "headers": {"If-Match": f'"{etag}"', "If-Unmodified-Since": _http(uploaded - DAY)}
            }
        )
    else:
        only_if = (
            {"etagDoesNotMatch": OTHER, "uploadedAfter": _iso(uploaded + DAY)}
            if form == "R2Conditional"
            else {
                "headers": {
                    "If-None-Match": f'"{OTHER}"',
                    "If-Modified-Since": _http(uploaded + DAY),
                }
            }
        )
    got = bindings.get(key, onlyIf=only_if).value()
    assert got is not None and "body" in got, f"get() {only_if}: no body: {got!r}"
    assert body_of(got) == b"old"
    written = bindings.put(key, b"new", onlyIf=only_if).value()
    assert written is not None, f"put() {only_if}: the ETag condition holds, nothing written"
    assert body_of(bindings.get(key).value()) == b"new", only_if
