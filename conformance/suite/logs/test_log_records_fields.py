"""Standard fields a job selects: ClientRequestPath, fields named after one the entry may lack,
and logpull_options written as the Logpull URL the provider says a job may be given; the options
the provider's Logpush API configuration page adds: timestamps unixnano when none is named, and
`CVE-2021-44228=true` (every `${` of a line becomes `x{`); and `{DATE}` in a destination path,
which the same page says is substituted with the date (YYYYMMDD).

One round of its own (so the records module's jobs stay as they are): a job whose fields= names
ClientCountry first (a field of the dataset that a target may leave empty: the reference has no
client geography) and then fields every request has; and a job created with its logpull_options
in the Logpull URL form (`<base_url>/zones/<zone>/logs/received?fields=...`). The provider
documents that form for a deprecated field, so a target may refuse the job: it is created the
tolerant way (`quiet`: None when refused, read once the first job's lines arrived) and its rule
is then not checked. A job without timestamps= (which also logs the configured header as sent) and
one with the redaction option are created as the first job is: the provider documents both forms.
The job without timestamps= pushes to `<its folder>/{DATE}`: no fifth job, a zone has four.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import log_rule
from conformance.suite.logs.log_delivery import (
    REDACTION,
    REDACTION_SINCE,
    TIMESTAMP_FIELDS,
    WAIT_ENV,
    Delivered,
    QuietJob,
    Traffic,
    delivered_logs,
)
from conformance.suite.setup_check import not_checked, require

QUERY = "ec-f=1&ec-g=two"
FIELDS = "fields"
URL_FORM = "url-form"
# every request has these; the job names ClientCountry before them
PRESENT = ("RayID", "ClientRequestPath", "ClientRequestURI", "EdgeResponseStatus")
FIELDS_OPTIONS = f"fields=ClientCountry,{','.join(PRESENT)}&timestamps=rfc3339"
URL_FORM_FIELDS = ("RayID", "ClientRequestURI", "EdgeResponseStatus")
# no timestamps=: the provider's default format (unixnano) for both timestamp fields
DEFAULT_TS = "default-timestamps"
DEFAULT_TS_OPTIONS = (
    "fields=RayID,ClientRequestURI,EdgeStartTimestamp,EdgeEndTimestamp,RequestHeaders"
)
REDACTED = "redacted"
# timestamps= before fields=: logpull_options is a query string (the spec), whose options come in
# any order; a reader that takes fields= only as the first option logs every field here
REDACTED_OPTIONS = (
    "timestamps=rfc3339"
    "&fields=RayID,ClientRequestURI,EdgeStartTimestamp,EdgeEndTimestamp,RequestHeaders"
)
# the job whose destination path ends in {DATE} (log_delivery.DATE_PLACEHOLDER): one of the
# round's jobs, as a zone has at most four (the provider's limit) and the round uses them all
DATED = DEFAULT_TS
LOOKUP = "ec-${x}-and-${y}"  # two occurrences, every one replaced (no jndi: a WAF may refuse that)
NANOS_PER_S = 10**9
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def _url_form(rules_api: RulesApiClient) -> str:
    """The Logpull call a job's logpull_options may copy whole (the provider's API reference:
    "copy the url (full url or just the query string) of your call here")."""
    query = f"fields={','.join(URL_FORM_FIELDS)}&timestamps=rfc3339"
    return f"{rules_api.base_url}/zones/{rules_api.zone_id}/logs/received?{query}"


@pytest.fixture(scope="module")
def logs(
    rules_api: RulesApiClient,
    s3: Any,
    edge: dict[str, Any],
    run_prefix: str,
    zone_lock: Any,
    as_of: dt.date,
) -> Iterator[Delivered]:
    # a response header and a cookie configured too: the jobs that select RequestHeaders alone
    # must not get them
    rules = [log_rule(request=("x-ec-req",), response=("set-cookie",), cookies=("ec_sel",))]
    redacted = REDACTED_OPTIONS + (REDACTION if as_of >= REDACTION_SINCE else "")
    jobs = {FIELDS: FIELDS_OPTIONS, DEFAULT_TS: DEFAULT_TS_OPTIONS, REDACTED: redacted}
    tolerant = {URL_FORM: QuietJob(_url_form(rules_api))}
    traffic = [Traffic("q", {"x-ec-req": LOOKUP, "cookie": "ec_sel=1"}, query=QUERY)]
    url = edge["url"]
    with (
        zone_lock,
        delivered_logs(
            rules_api, s3, url, run_prefix, rules, jobs, traffic, tolerant, dated=(DATED,)
        ) as logs,
    ):
        yield logs


@pytest.mark.rule("logs.records.client-request-path")
def test_client_request_path_is_the_path_without_the_query(logs: Delivered) -> None:
    """ClientRequestPath is the path the client asked for, without its query string (the
    provider's field list; ClientRequestURI carries the query)."""
    entry = logs.entry(FIELDS, "q")
    path = entry.get("ClientRequestPath")
    assert isinstance(path, str), f"ClientRequestPath {path!r}: {entry}"
    assert path.endswith(logs.paths["q"]) and "?" not in path, (
        f"ClientRequestPath should be {logs.paths['q']!r} (no query), the record's is {path!r}"
    )


@pytest.mark.rule("logs.records.selected-fields")
def test_fields_named_after_one_the_entry_lacks_are_logged(logs: Delivered) -> None:
    """Every field the job selects that each request has is in its entry, also those named
    after ClientCountry; and no field it did not select is."""
    entry = logs.entry(FIELDS, "q")
    missing = [name for name in PRESENT if name not in entry]
    assert not missing, f"selected fields {missing} missing from the entry: {entry}"
    extra = set(entry) - {"ClientCountry", *PRESENT}
    assert not extra, f"fields {sorted(extra)} were not selected: {entry}"


@pytest.mark.rule("logs.records.selected-fields")
@pytest.mark.parametrize("job", [DEFAULT_TS, REDACTED])
def test_one_custom_field_selected_brings_no_other(logs: Delivered, job: str) -> None:
    """A job whose fields= names RequestHeaders alone of the three custom fields gets neither
    ResponseHeaders nor Cookies, though the zone configures a response header and a cookie
    the request carries: each custom field is a field of its own (the spec: fields= includes
    Cookies, RequestHeaders and/or ResponseHeaders). The redacted job names timestamps= first:
    its fields= is read wherever it stands in the query string."""
    entry = logs.entry(job, "q")
    selected = set(DEFAULT_TS_OPTIONS.partition("=")[2].split(","))
    extra = set(entry) - selected
    assert not extra, f"job {job}: fields {sorted(extra)} were not selected: {entry}"
    assert "RequestHeaders" in entry, f"job {job}: the selected RequestHeaders is missing: {entry}"


@pytest.mark.rule("logs.records.logpull-url-form")
def test_logpull_options_in_url_form_select_the_fields(logs: Delivered) -> None:
    """A job whose logpull_options is the Logpull URL logs the fields its query selects: not
    every field, as a reader that takes the part before the '?' or keeps it in the first key
    would."""
    entries = logs.quiet.get(URL_FORM)
    if entries is None:
        not_checked("the target refused a job whose logpull_options is a Logpull URL")
    path = logs.paths["q"]
    found = [e for e in entries if path in str(e.get("ClientRequestURI"))]
    if not found:
        not_checked(f"the URL-form job's line for {path} did not come with the others ({WAIT_ENV})")
    entry = found[-1]
    extra = set(entry) - set(URL_FORM_FIELDS)
    assert not extra, f"fields {sorted(extra)} were not selected by the URL's query: {entry}"
    missing = [name for name in URL_FORM_FIELDS if name not in entry]
    assert not missing, f"selected fields {missing} missing from the entry: {entry}"


@pytest.mark.rule("logs.records.timestamps-default-unixnano")
@pytest.mark.parametrize("field", TIMESTAMP_FIELDS)
def test_timestamps_default_to_unixnano(logs: Delivered, field: str) -> None:
    """A job that names no timestamps= logs each timestamp field as an integer count of
    nanoseconds: the instant the rfc3339 job logs for the same request, to the second (Unix
    seconds or an RFC 3339 string would be another format)."""
    stamp = logs.entry(DEFAULT_TS, "q").get(field)
    assert isinstance(stamp, int) and not isinstance(stamp, bool), _want(field, stamp)
    other = logs.entry(REDACTED, "q").get(field)
    require(
        isinstance(other, str) and RFC3339.match(other),
        f"the rfc3339 job's {field} to compare with: {other!r}",
    )
    moment = dt.datetime.fromisoformat(str(other).replace("Z", "+00:00")).timestamp()
    assert abs(stamp / NANOS_PER_S - moment) <= 1.0, _want(field, stamp) + f" (rfc3339 {other})"


@pytest.mark.rule("logs.records.destination-date-folder")
def test_date_placeholder_is_the_batch_date(logs: Delivered, s3: Any) -> None:
    """A job whose destination path ends in `{DATE}` writes each batch below a folder named
    after the date in YYYYMMDD format (the provider's Logpush API configuration page: "It will
    be substituted with the date in YYYYMMDD format"), not below a folder named `{DATE}`. The
    date is the batch's: within a day of the object's LastModified (a batch of 23:59 may be
    written after midnight)."""
    logs.entry(DATED, "q")  # the job's line arrived (else the round's ERROR)
    listed = s3.boto.list_objects_v2(Bucket=logs.bucket, Prefix=f"{DATED}/")
    batches = [o for o in listed.get("Contents", []) if o["Key"].endswith(".gz")]
    assert batches, f"no batch below {DATED}/ though the job's line was read"
    for batch in batches:
        folder = batch["Key"][len(DATED) + 1 :].split("/", 1)[0]
        assert re.fullmatch(r"\d{8}", folder), (
            f"batch {batch['Key']!r}: the folder {{DATE}} names is {folder!r}, not YYYYMMDD"
        )
        day = dt.datetime.strptime(folder, "%Y%m%d").replace(tzinfo=dt.UTC)
        written = batch["LastModified"].astimezone(dt.UTC)
        assert abs((written - day).total_seconds() - 43200) <= 43200 + 86400, (
            f"batch {batch['Key']!r} written {written.isoformat()}: {folder} is not its date"
        )


def _want(field: str, stamp: object) -> str:
    return f"{field} should be integer Unix nanoseconds (the default), the record's is {stamp!r}"


@pytest.mark.rule("logs.records.cve-2021-44228-redaction")
def test_redaction_option_replaces_every_lookup(logs: Delivered) -> None:
    """With CVE-2021-44228=true every `${` of the logged header value is `x{`."""
    logged = logs.entry(REDACTED, "q").get("RequestHeaders")
    expected = {"x-ec-req": LOOKUP.replace("${", "x{")}
    assert logged == expected, f"RequestHeaders should be {expected!r}, the record's is {logged!r}"


@pytest.mark.rule("logs.records.cve-2021-44228-redaction")
def test_without_the_redaction_option_the_value_is_as_sent(logs: Delivered) -> None:
    """The redaction is an option: a job without it logs `${` as the client sent it."""
    logged = logs.entry(DEFAULT_TS, "q").get("RequestHeaders")
    assert logged == {"x-ec-req": LOOKUP}, f"RequestHeaders {logged!r}, sent {LOOKUP!r}"
