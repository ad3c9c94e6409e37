"""onlyIf as a Headers object built from [name, value] pairs, and R2Conditional times in ms.

The provider's Workers R2 reference: onlyIf is an R2Conditional or a Headers object; put() with
an onlyIf that fails stores nothing and returns null, get() with one that fails returns the
object without its body. A Headers object may be made from an object or from a sequence of
[name, value] pairs (the Fetch standard's HeadersInit); the bridge sends the pair form as a list
of two-element lists (docs/bindings-bridge.md), which is the same Headers. The Fetch standard's
Headers constructor throws a TypeError for an init that is neither a sequence nor a record, and
for a pair that is not two items long: such an onlyIf is refused and nothing is written.

The dates of the header cases are a day from the object's upload time (no clock decides them).
R2Conditional's uploadedBefore / uploadedAfter are Dates, and an object's `uploaded` is a Date
with milliseconds: an object uploaded at least 100 ms into its second was uploaded after that
second's start, so uploadedAfter the second's start holds and uploadedBefore it fails (the
Workers R2 reference: "uploaded after / before the given date"; only the Headers form's HTTP
dates have whole seconds, RFC 9110 5.6.7).
"""

from __future__ import annotations

import datetime as dt
import time
from email.utils import format_datetime
from typing import Any

import pytest

from conformance.clients.bindings import body_of
from conformance.suite.setup_check import not_checked

DAY = dt.timedelta(days=1)
OTHER = "0" * 32
# how far into its second the upload must lie for the millisecond case (several tries at most)
MARGIN = dt.timedelta(milliseconds=100)
TRIES = 20
PAUSE = 0.15  # seconds


def _uploaded(doc: dict[str, Any]) -> dt.datetime:
    moment = dt.datetime.fromisoformat(str(doc["uploaded"]).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _http(moment: dt.datetime) -> str:
    return format_datetime(moment.astimezone(dt.UTC), usegmt=True)


def _value(header: str, doc: dict[str, Any], met: bool) -> str:
    """The header's value that holds (met) or fails on the object `doc`."""
    etag = f'"{doc["etag"]}"'
    uploaded = _uploaded(doc)
    return {
        "If-Match": etag if met else f'"{OTHER}"',
        "If-None-Match": f'"{OTHER}"' if met else etag,
        "If-Unmodified-Since": _http(uploaded + (DAY if met else -DAY)),
        "If-Modified-Since": _http(uploaded + (-DAY if met else DAY)),
    }[header]


HEADERS = ["If-Match", "If-None-Match", "If-Unmodified-Since", "If-Modified-Since"]


@pytest.mark.rule("storage.bindings.put-only-if")
@pytest.mark.parametrize("met", [True, False], ids=["met", "unmet"])
@pytest.mark.parametrize("header", HEADERS)
def test_put_by_header_pairs(bindings: Any, names: Any, header: str, met: bool) -> None:
    """put() with onlyIf a Headers of one [name, value] pair: written only when it holds."""
    key = names.key()
    first = bindings.put(key, b"old").value()
    only_if = {"headers": [[header, _value(header, first, met)]]}
    result = bindings.put(key, b"new", onlyIf=only_if).value()
    assert (result is not None) == met, f"{only_if}: {result!r}"
    assert body_of(bindings.get(key).value()) == (b"new" if met else b"old"), only_if


@pytest.mark.rule("storage.bindings.conditional-strong-list")
@pytest.mark.parametrize("met", [True, False], ids=["met", "unmet"])
@pytest.mark.parametrize("header", ["If-Match", "If-None-Match"])
def test_get_by_header_pairs(bindings: Any, names: Any, header: str, met: bool) -> None:
    """get() with onlyIf a Headers of [name, value] pairs: the body only when it holds. The
    header comes twice, first with another ETag (the Headers joins a name given twice into one
    list, Fetch standard "append"): a list of strong ETags matches when any member matches."""
    key = names.key()
    first = bindings.put(key, b"body").value()
    pairs = [[header, f'"{"1" * 32}"'], [header, _value(header, first, met)]]
    got = bindings.get(key, onlyIf={"headers": pairs}).value()
    assert got is not None and got.get("key") == key, f"{pairs}: expected the object, {got!r}"
    assert ("body" in got) == met, f"{pairs}: {got!r}"
    if met:
        assert body_of(got) == b"body"


@pytest.mark.rule("storage.bindings.put-only-if")
@pytest.mark.parametrize(
    "headers",
    [5, [["If-None-Match", f'"{OTHER}"', "extra"]]],
    ids=["not-a-headers-init", "three-item-pair"],
)
def test_put_with_a_malformed_headers_init_is_refused(
    bindings: Any, names: Any, headers: Any
) -> None:
    """A Headers init that is neither pairs nor an object, or a pair of three items: the
    Headers constructor throws a TypeError (Fetch standard), so the put throws (a clean
    refusal, not an internal error) and writes nothing."""
    key = names.key()
    outcome = bindings.put(key, b"x", onlyIf={"headers": headers})
    error = outcome.refused()
    assert error.get("name") == "TypeError", f"{headers!r}: {outcome.describe()}"
    assert bindings.head(key).value() is None, f"{headers!r}: written"


def _upload_into_its_second(bindings: Any, key: str) -> dict[str, Any]:
    """Put until the object's upload time lies at least MARGIN into its second (a pause
    between tries, so that quick puts early in one second do not use up the tries)."""
    for attempt in range(TRIES):
        if attempt:
            time.sleep(PAUSE)
        doc: dict[str, Any] = bindings.put(key, b"old").value()
        uploaded = _uploaded(doc)
        if uploaded - uploaded.replace(microsecond=0) >= MARGIN:
            return doc
    not_checked(f"no upload {MARGIN} into its second in {TRIES} puts")


@pytest.mark.rule("storage.bindings.put-only-if")
def test_put_by_upload_time_within_its_second(bindings: Any, names: Any) -> None:
    """R2Conditional dates are compared with the milliseconds of `uploaded`: uploadedBefore
    the start of the upload's second fails, uploadedAfter it holds."""
    key = names.key()
    start = _uploaded(_upload_into_its_second(bindings, key)).replace(microsecond=0)
    text = start.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    unmet = bindings.put(key, b"new", onlyIf={"uploadedBefore": text}).value()
    assert unmet is None, f"uploadedBefore {text} wrote: {unmet!r}"
    assert body_of(bindings.get(key).value()) == b"old"
    met = bindings.put(key, b"new", onlyIf={"uploadedAfter": text}).value()
    assert met is not None, f"uploadedAfter {text}: the object uploaded after it was not written"
    assert body_of(bindings.get(key).value()) == b"new"
