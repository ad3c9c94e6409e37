"""Log entries read back from an r2:// destination hold the configured custom fields.

One round for the module (configuration, two jobs, traffic, delivery) keeps the wait for
delivery to one; each test then checks one rule on the entries read back. Two more jobs, one
disabled and one of another dataset, are read once the others' lines arrived: they must get none.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import time
from collections.abc import Iterator
from typing import Any, cast

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import log_rule
from conformance.suite.logs.log_delivery import (
    ALL_FIELDS,
    FIRST_ORIGIN_COOKIE,
    REDACTION,
    REDACTION_SINCE,
    RESPOND_PREFIX,
    TIMESTAMP_FIELDS,
    WAIT_ENV,
    Delivered,
    QuietJob,
    Traffic,
    delivered_logs,
    log_wait,
)
from conformance.suite.setup_check import not_checked, require

TAIL = "tail"
# seconds between the round's answers and its tail request: its logged start is then past
# them even when the stamp drops the fraction, with half a second for clock skew
TAIL_PAUSE = 1.5
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
REQUEST_VALUE = "request-value-1"
RESPONSE_VALUE = "response-value-2"
# '=' is a cookie-octet (RFC 6265 4.1.1): base64 padding is the common case; the whole value is
# logged, not the part before a second '='
COOKIE_VALUE = "cookie-value-3=="
POSTED_VALUE = "posted-value-4"
# a request header sent on two lines (the spec's Limits: only the first instance is logged)
REPEATED = "x-ec-req-twice"
REPEATED_FIRST = "first-instance-5"
REPEATED_SECOND = "second-instance-6"
# the provider's change adding preserve_duplicates (changelog and custom-fields page)
PRESERVE_SINCE = dt.date(2025, 4, 18)
QUERY = "ec-q=1&ec-r=two"
# reserved characters a path segment may hold as they are (RFC 3986 3.3): a target that
# rebuilds the URI from the decoded path and re-encodes it logs another URI (`:` as `%3A`).
# No percent-encoded unreserved character: the provider's URL normalization (RFC 3986 or its
# own) may decode those, but neither form encodes or decodes these reserved ones.
PATH_SUFFIX = "-v;w=1:a@b,c!$(d)*+"
SELECTED = "fields"
UNSELECTED = "plain"
# the plain job: no custom field, and its timestamps in nanoseconds (the same instant as the
# rfc3339 job's, a second form of the record to compare with)
UNSELECTED_FIELDS = ("RayID", "ClientRequestURI", "EdgeResponseStatus", "EdgeStartTimestamp")
# jobs that must get none of the round's lines: the same fields as the selected job but
# disabled, and an enabled job of another dataset (firewall events: the round's requests raise
# none, and a custom field belongs to http_requests alone)
DISABLED = "disabled"
OTHER_DATASET = "firewall"
QUIET = {
    DISABLED: QuietJob(f"fields={ALL_FIELDS}&timestamps=rfc3339", enabled=False),
    # firewall_events fields; ClientRequestPath names the round's requests in a line fed to it
    OTHER_DATASET: QuietJob(
        "fields=Action,ClientRequestPath,Datetime,RayID&timestamps=rfc3339", "firewall_events"
    ),
}


@pytest.fixture(scope="module")
def logs(
    rules_api: RulesApiClient,
    s3: Any,
    edge: dict[str, Any],
    run_prefix: str,
    zone_lock: Any,
    as_of: dt.date,
) -> Iterator[Delivered]:
    # a disabled rule first: its header is not logged, and the enabled rules after it are; from
    # the provider's change of 2025-04-18 it asks for preserve_duplicates, and the enabled rule
    # says false: only the first instance of a repeated header is still logged
    disabled = log_rule(request=("x-ec-unconfigured",), enabled=False)
    enabled = log_rule(
        request=("x-ec-req", REPEATED),
        response=("x-ec-resp", "set-cookie"),
        cookies=("SessionId",),
    )
    if as_of >= PRESERVE_SINCE:
        disabled["action_parameters"]["preserve_duplicates"] = True
        enabled["action_parameters"]["preserve_duplicates"] = False
    # one enabled rule: the spec's configuration is "a rule", and no source says how the fields
    # of several enabled rules combine
    rules = [disabled, enabled]
    jobs = {
        SELECTED: f"fields={ALL_FIELDS}&timestamps=rfc3339",
        # with the redaction option (from its date): it rewrites `${` in text, and the line's
        # numbers (status, unixnano stamp) stay numbers
        UNSELECTED: f"fields={','.join(UNSELECTED_FIELDS)}&timestamps=unixnano"
        + (REDACTION if as_of >= REDACTION_SINCE else ""),
    }
    traffic = [
        Traffic(
            "all",
            {
                "x-ec-req": REQUEST_VALUE,
                "x-ec-unconfigured": "not-logged",
                RESPOND_PREFIX + "x-ec-resp": RESPONSE_VALUE,
                "cookie": f"sessionid=lower-case; SessionId={COOKIE_VALUE}; Other=x",
            },
            query=QUERY,
            suffix=PATH_SUFFIX,
            # a configured header sent on two field lines: its first instance is logged
            lines=((REPEATED, REPEATED_FIRST), (REPEATED, REPEATED_SECOND)),
        ),
        # a request with a body: the zone's every request is logged, not only its GETs
        Traffic("post", {"x-ec-req": POSTED_VALUE}, method="POST"),
        # a later request: when lines are missing, whether the job's last_complete is past it
        # goes into the ERROR's evidence (_judge_missing)
        Traffic(TAIL, {}, pause=TAIL_PAUSE),
    ]
    url = edge["url"]
    with (
        zone_lock,
        delivered_logs(rules_api, s3, url, run_prefix, rules, jobs, traffic, QUIET, True) as logs,
    ):
        yield logs


def _object(entry: dict[str, Any], name: str) -> dict[str, Any]:
    """The custom field object `name` of a log entry; its absence is the target's failure."""
    value = entry.get(name)
    assert isinstance(value, dict), f"{name} is {type(value).__name__}, not an object: {entry}"
    return value


def _want(name: str, expected: Any, entry: dict[str, Any]) -> str:
    """A failure's first line says what the record should hold and what it held (the summary
    and the triage show only that line); the whole record follows."""
    return f"{name} should be {expected!r}, the record's is {entry.get(name)!r}; record: {entry}"


@pytest.mark.rule("logs.records.request-header")
def test_configured_request_header_is_logged(logs: Delivered) -> None:
    """The request headers the enabled rule names are logged (one of them sent on two lines,
    whose value is repeated-header-first's), the disabled rule's not."""
    entry = logs.entry(SELECTED, "all")
    expected = {"x-ec-req": REQUEST_VALUE, REPEATED: REPEATED_FIRST}
    logged = entry.get("RequestHeaders")
    assert isinstance(logged, dict) and set(logged) == set(expected), _want(
        "RequestHeaders", expected, entry
    )
    assert logged.get("x-ec-req") == REQUEST_VALUE, _want("RequestHeaders", expected, entry)


@pytest.mark.rule("logs.records.request-header")
def test_configured_request_header_of_a_post_is_logged(logs: Delivered) -> None:
    """A POST is the zone's traffic as a GET is: its entry holds the configured header."""
    entry = logs.entry(SELECTED, "post")
    expected = {"x-ec-req": POSTED_VALUE}
    assert entry.get("RequestHeaders") == expected, _want("RequestHeaders", expected, entry)


@pytest.mark.rule("logs.records.response-header")
def test_configured_response_header_is_logged(logs: Delivered) -> None:
    entry = logs.entry(SELECTED, "all")
    found = _object(entry, "ResponseHeaders").get("x-ec-resp")
    assert found == RESPONSE_VALUE, _want("ResponseHeaders", {"x-ec-resp": RESPONSE_VALUE}, entry)


@pytest.mark.rule("logs.records.cookie")
def test_configured_cookie_is_logged(logs: Delivered) -> None:
    """The configured cookie's value is in Cookies (under which capitalization: cookie-case)."""
    entry = logs.entry(SELECTED, "all")
    assert COOKIE_VALUE in _object(entry, "Cookies").values(), _want(
        "Cookies", {"SessionId": COOKIE_VALUE}, entry
    )


@pytest.mark.rule("logs.records.cookie-case")
def test_cookie_is_logged_under_its_configured_case(logs: Delivered) -> None:
    """The cookie is logged as `SessionId`; the request's `sessionid` is another cookie."""
    entry = logs.entry(SELECTED, "all")
    cookies = entry.get("Cookies")
    require(
        isinstance(cookies, dict) and COOKIE_VALUE in cookies.values(),
        f"the configured cookie was not logged (logs.records.cookie): {entry}",
    )
    assert cookies == {"SessionId": COOKIE_VALUE}, _want(
        "Cookies", {"SessionId": COOKIE_VALUE}, entry
    )


@pytest.mark.rule("logs.records.repeated-header-first")
def test_repeated_response_header_logs_its_first_instance(logs: Delivered) -> None:
    """Of the origin's two set-cookie lines the first is logged; from 2025-04-18 the enabled
    rule says preserve_duplicates false and only the disabled one true, which does not count."""
    entry = logs.entry(SELECTED, "all")
    found = _object(entry, "ResponseHeaders").get("set-cookie")
    assert found == FIRST_ORIGIN_COOKIE, _want(
        "ResponseHeaders", {"set-cookie": FIRST_ORIGIN_COOKIE, "...": "..."}, entry
    )


@pytest.mark.rule("logs.records.repeated-header-first")
def test_repeated_request_header_logs_its_first_instance(logs: Delivered) -> None:
    """A request header sent on two field lines is logged with its first line's value, not the
    last, nor both joined (the spec's Limits: only the first instance of a repeated header)."""
    entry = logs.entry(SELECTED, "all")
    found = _object(entry, "RequestHeaders").get(REPEATED)
    assert found == REPEATED_FIRST, _want("RequestHeaders", {REPEATED: REPEATED_FIRST}, entry)


@pytest.mark.rule("logs.records.field-objects")
def test_custom_fields_are_objects_of_names_and_values(logs: Delivered) -> None:
    entry = logs.entry(SELECTED, "all")
    for name in ("RequestHeaders", "ResponseHeaders", "Cookies"):
        value = _object(entry, name)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    assert set(entry["ResponseHeaders"]) == {"x-ec-resp", "set-cookie"}


@pytest.mark.rule("logs.records.requires-field-selection")
def test_custom_fields_only_in_jobs_that_select_them(logs: Delivered) -> None:
    entry = logs.entry(UNSELECTED, "all")
    assert not {"RequestHeaders", "ResponseHeaders", "Cookies"} & set(entry), entry
    assert set(entry) <= set(UNSELECTED_FIELDS)


@pytest.mark.rule("logs.records.cve-2021-44228-redaction")
def test_redaction_option_keeps_numbers(logs: Delivered, as_of: dt.date) -> None:
    """The redaction option rewrites `${` in the line's text only: the plain job (which has
    it) still logs EdgeResponseStatus and its unixnano EdgeStartTimestamp as integers."""
    if as_of < REDACTION_SINCE:
        pytest.skip(f"N/A: the redaction option dates from {REDACTION_SINCE}")
    entry = logs.entry(UNSELECTED, "all")
    for name in ("EdgeResponseStatus", "EdgeStartTimestamp"):
        value = entry.get(name)
        assert isinstance(value, int) and not isinstance(value, bool), _want(name, "an int", entry)


@pytest.mark.rule("logs.records.disabled-job-gets-nothing")
def test_disabled_job_gets_none_of_the_lines(logs: Delivered) -> None:
    """A job created with enabled false pushes nothing, while the enabled jobs got the round."""
    fed = logs.quiet_entries_of_round(DISABLED)
    if fed is None:
        not_checked("the target refused to create a disabled http_requests job")
    assert not fed, f"the disabled job got {len(fed)} of the round's entries: {fed[:2]}"


@pytest.mark.rule("logs.records.http-requests-dataset-only")
def test_other_dataset_job_gets_none_of_the_lines(logs: Delivered) -> None:
    """An enabled job of another dataset (firewall_events) gets no http_requests entry of the
    round, and no custom field."""
    entries = logs.quiet_entries_of_round(OTHER_DATASET)
    if entries is None:
        not_checked("the target refused to create a firewall_events job (its plan may lack it)")
    # a security rule may log a real firewall event for a round's request: it has an Action
    fed = [e for e in entries if not e.get("Action")]
    assert not fed, f"the firewall_events job got {len(fed)} of the round's entries: {fed[:2]}"
    custom = [e for e in logs.quiet[OTHER_DATASET] or [] if "RequestHeaders" in e]
    assert not custom, f"the firewall_events job logged custom fields: {custom[:2]}"


@pytest.mark.rule("logs.records.timestamps-rfc3339")
@pytest.mark.parametrize("field", TIMESTAMP_FIELDS)
def test_rfc3339_timestamps(logs: Delivered, field: str) -> None:
    """Every timestamp field the job selects is formatted, not only the first."""
    entry = logs.entry(SELECTED, "all")
    stamp = entry.get(field)
    assert isinstance(stamp, str) and RFC3339.match(stamp), f"{field} is {stamp!r}: {entry}"


@pytest.mark.rule("logs.records.timestamps-rfc3339")
def test_rfc3339_timestamp_is_the_request_instant(logs: Delivered) -> None:
    """The RFC 3339 stamp names the instant the unixnano job logs for the same request (to
    the second: RFC 3339 may drop the fraction, so a stamp may round either way)."""
    stamp = logs.entry(SELECTED, "all")["EdgeStartTimestamp"]
    nanos = logs.entry(UNSELECTED, "all").get("EdgeStartTimestamp")
    require(
        isinstance(nanos, int) and isinstance(stamp, str) and RFC3339.match(stamp),
        f"timestamps to compare: rfc3339 {stamp!r}, unixnano {nanos!r}",
    )
    moment = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    seconds = cast(int, nanos) / 1e9  # an int: require() above
    assert abs(moment - seconds) <= 1.0, f"rfc3339 {stamp} is not unixnano {nanos}"


def _read_job(rules_api: RulesApiClient, name: str, job_id: Any) -> dict[str, Any]:
    reply = rules_api.get_job(job_id)
    job = reply.result
    require(
        reply.status == 200 and isinstance(job, dict), f"job {name}: GET answered {reply.status}"
    )
    return cast(dict[str, Any], job)


def _instant(stamp: Any) -> float | None:
    """A logged or job date-time as seconds since the epoch: an RFC 3339 string, or an integer
    count of nanoseconds (unixnano) or seconds (unix); None when it is neither."""
    if isinstance(stamp, str) and RFC3339.match(stamp):
        return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        return stamp / 1e9 if stamp > 10**14 else float(stamp)
    return None


def _judge_missing(rules_api: RulesApiClient, logs: Delivered, name: str, job_id: Any) -> None:
    """A job missing some of the round's lines after the whole log wait: the rule is not
    checked (ERROR), never FAILed, even when the round's tail (sent TAIL_PAUSE seconds after
    them) arrived and the job reports no failure with last_complete past the tail's logged
    start. The provider documents last_complete as the end of the range of its *last*
    successful push, not as a mark before which everything was pushed, and last_error as
    cleared by any successful run: an earlier batch still in flight or being retried is
    consistent with both, and no delivery deadline is documented (docs/decisions.md, Area A).
    The job's figures go into the ERROR's message as evidence."""
    missing = logs.missing[name]
    entries = logs.entries.get(name, [])
    tail = [e for e in entries if logs.paths[TAIL] in str(e.get("ClientRequestURI"))]
    started = _instant(tail[-1].get("EdgeStartTimestamp")) if tail else None
    job = _read_job(rules_api, name, job_id)
    pushed = _instant(job.get("last_complete"))
    past = TAIL not in missing and started is not None and pushed is not None and pushed >= started
    require(  # only called for a job with missing lines: always an ERROR
        False,
        f"job {name}: no line for {[logs.paths[t] for t in missing]} after waiting"
        f" {logs.waited:.0f}s ({WAIT_ENV}); the job reads last_complete"
        f" {job.get('last_complete')!r}, last_error {job.get('last_error')!r}"
        + (f", at or after the tail's logged start ({started:.3f})" if past else "")
        + f": {job}",
    )


@pytest.mark.rule("logs.logpush.job-status-after-delivery")
def test_job_shows_its_delivery(rules_api: RulesApiClient, logs: Delivered) -> None:
    """Each job whose lines arrived has run and is not failing: last_complete is a date-time,
    last_error and error_message are null (the provider's job fields). A target may record the
    push a moment after the batch landed: the jobs are read again until last_complete is set
    (within one log wait for them all). A job still missing lines after the wait leaves the
    rule not checked, with the job's figures as evidence (`_judge_missing`)."""
    deadline = time.monotonic() + log_wait()
    whole = {name: job_id for name, job_id in logs.job_ids.items() if not logs.missing.get(name)}
    for name, job_id in whole.items():
        while True:
            job = _read_job(rules_api, name, job_id)
            if job.get("last_complete") or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        stamp = job.get("last_complete")
        assert isinstance(stamp, str) and RFC3339.match(stamp), f"job {name}: {job}"
        assert job.get("last_error") is None, f"job {name} says it is failing: {job}"
        assert job.get("error_message") is None, f"job {name} says it is failing: {job}"
    for name, job_id in logs.job_ids.items():
        if logs.missing.get(name):
            _judge_missing(rules_api, logs, name, job_id)


@pytest.mark.rule("logs.logpush.reference-delivers-round")
def test_reference_delivers_the_whole_round(logs: Delivered) -> None:
    """Reference-only (the catalog says why): the reference bounds its delivery, so the round's
    every line reaching both enabled jobs within the log wait is a rule there, where against
    another target a late line only leaves the records rules not checked. Its edge answers the
    round's GETs with its origin's 200: a 4xx/5xx there (a line the edge failed to build) is the
    same defect, seen earlier."""
    assert not logs.refused, f"the edge refused some of the round's GETs: {logs.refused}"
    late = {job: names for job, names in logs.missing.items() if names}
    got = {job: len(entries) for job, entries in logs.entries.items()}
    assert not late, (
        f"lines not delivered within {logs.waited:.0f}s ({WAIT_ENV}), per job the requests"
        f" whose line is missing: {late}; entries read per job: {got}"
    )


@pytest.mark.rule("logs.records.client-request-uri-query")
def test_client_request_uri_keeps_the_query(logs: Delivered) -> None:
    """ClientRequestURI is the URI the client asked for: its path (reserved characters as
    sent) and its query string."""
    entry = logs.entry(SELECTED, "all")
    uri = str(entry["ClientRequestURI"])
    sent = f"{logs.paths['all']}{PATH_SUFFIX}?{QUERY}"
    assert uri.endswith(sent), f"ClientRequestURI {uri!r}, the request's URI was {sent!r}"


@pytest.mark.rule("logs.records.client-ip")
def test_client_ip_is_an_ip_address(logs: Delivered) -> None:
    """ClientIP holds the client's IP address: an IPv4 or IPv6 literal, never empty."""
    entry = logs.entry(SELECTED, "all")
    value = entry.get("ClientIP")
    assert isinstance(value, str) and value, f"ClientIP {value!r}: {entry}"
    try:
        ipaddress.ip_address(value)
    except ValueError:
        raise AssertionError(f"ClientIP {value!r} is not an IP address") from None
