"""Standard fields a job selects: ClientRequestPath, fields named after one the entry may lack,
and logpull_options written as the Logpull URL the provider says a job may be given.

One round of its own (so the records module's jobs stay as they are): a job whose fields= names
ClientCountry first (a field of the dataset that a target may leave empty: the reference has no
client geography) and then fields every request has; and a job created with its logpull_options
in the Logpull URL form (`<base_url>/zones/<zone>/logs/received?fields=...`). The provider
documents that form for a deprecated field, so a target may refuse the job: it is created the
tolerant way (`quiet`: None when refused, read once the first job's lines arrived) and its rule
is then not checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import log_rule
from conformance.suite.logs.log_delivery import (
    WAIT_ENV,
    Delivered,
    QuietJob,
    Traffic,
    delivered_logs,
)
from conformance.suite.setup_check import not_checked

QUERY = "ec-f=1&ec-g=two"
FIELDS = "fields"
URL_FORM = "url-form"
# every request has these; the job names ClientCountry before them
PRESENT = ("RayID", "ClientRequestPath", "ClientRequestURI", "EdgeResponseStatus")
FIELDS_OPTIONS = f"fields=ClientCountry,{','.join(PRESENT)}&timestamps=rfc3339"
URL_FORM_FIELDS = ("RayID", "ClientRequestURI", "EdgeResponseStatus")


def _url_form(rules_api: RulesApiClient) -> str:
    """The Logpull call a job's logpull_options may copy whole (the provider's API reference:
    "copy the url (full url or just the query string) of your call here")."""
    query = f"fields={','.join(URL_FORM_FIELDS)}&timestamps=rfc3339"
    return f"{rules_api.base_url}/zones/{rules_api.zone_id}/logs/received?{query}"


@pytest.fixture(scope="module")
def logs(
    rules_api: RulesApiClient, s3: Any, edge: dict[str, Any], run_prefix: str, zone_lock: Any
) -> Iterator[Delivered]:
    rules = [log_rule(request=("x-ec-req",))]
    jobs = {FIELDS: FIELDS_OPTIONS}
    tolerant = {URL_FORM: QuietJob(_url_form(rules_api))}
    traffic = [Traffic("q", {"x-ec-req": "fields-round"}, query=QUERY)]
    url = edge["url"]
    with (
        zone_lock,
        delivered_logs(rules_api, s3, url, run_prefix, rules, jobs, traffic, tolerant) as logs,
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
