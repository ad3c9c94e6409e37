"""Job members the provider does not list are refused; a dataset it lists is kept.

The provider's job schema types destination_conf as a URI string and enumerates the datasets,
and its API configuration page lists the destination schemes. An implementer who skips a check
(or checks only one of a string's type and emptiness) accepts what the provider refuses, or
answers a 500; one who fills in the custom-fields dataset for any job changes a job's dataset.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conformance.clients.rules_api import Reply, RulesApiClient
from conformance.suite.logs.helpers import (
    challenge_token,
    http_destination,
    job_body,
    job_cleanup,
)
from conformance.suite.setup_check import not_checked, require_ok

# fields the provider documents for the firewall_events dataset
FIREWALL_OPTIONS = "fields=Action,ClientIP,RayName,Datetime&timestamps=rfc3339"


@contextmanager
def _created_job(
    rules_api: RulesApiClient, run_prefix: str, dataset: str, logpull_options: str
) -> Iterator[Reply]:
    """The reply to creating a job of `dataset` to a destination whose ownership was proven,
    so that only the dataset and its fields can be the reason for a refusal; the run's jobs
    are deleted on the way out."""
    with http_destination(run_prefix) as (url, got), job_cleanup(rules_api, run_prefix):
        require_ok(rules_api.request_ownership(url), "the ownership challenge request")
        token = challenge_token(got)
        body = job_body(run_prefix, url, token, dataset=dataset, logpull_options=logpull_options)
        yield rules_api.create_job(body)


@pytest.mark.rule("logs.logpush.job-members")
@pytest.mark.parametrize(
    "destination", [12345, "ftp://example.com/logs"], ids=["number", "ftp-scheme"]
)
def test_destination_outside_the_providers_schemes_is_refused(
    rules_api: RulesApiClient, destination: Any
) -> None:
    """An ownership challenge for a number, or for an ftp:// URI, is refused with a 4xx (the
    provider publishes no status for it)."""
    reply = rules_api.request_ownership(destination)
    assert 400 <= reply.status < 500, reply.describe()
    reply.assert_envelope_error(reply.status)


@pytest.mark.rule("logs.logpush.job-members")
@pytest.mark.parametrize("dataset", ["edge_conformance_none", "HTTP_REQUESTS"])
def test_unlisted_dataset_is_refused(
    rules_api: RulesApiClient, run_prefix: str, dataset: str
) -> None:
    """A job of a dataset the provider does not list is refused with a 4xx, no status being
    published (its fields are no custom fields, so that only the dataset can be the reason).
    The job schema's dataset is an enum, matched exactly: `HTTP_REQUESTS` is not the listed
    `http_requests` (hand mutant hm9 HM636: a case-insensitive match accepts it, and the job
    then gets no http_requests line)."""
    options = "fields=RayID,EdgeStartTimestamp&timestamps=rfc3339"
    with _created_job(rules_api, run_prefix, dataset, options) as reply:
        assert 400 <= reply.status < 500, reply.describe()
        reply.assert_envelope_error(reply.status)


@pytest.mark.rule("logs.logpush.job-members")
def test_listed_dataset_is_kept(rules_api: RulesApiClient, run_prefix: str) -> None:
    """A job of firewall_events (with that dataset's fields) shows firewall_events. A zone
    whose plan lacks the dataset refuses the job: the rule is then not checked here."""
    with _created_job(rules_api, run_prefix, "firewall_events", FIREWALL_OPTIONS) as reply:
        if not 200 <= reply.status < 300:
            not_checked(f"the zone refused a firewall_events job: {reply.describe()}")
        job = reply.assert_envelope_ok()
        assert job.get("dataset") == "firewall_events", f"created as {job}"
        shown = rules_api.get_job(job["id"]).assert_envelope_ok(200)
        assert shown.get("dataset") == "firewall_events", f"read back as {shown}"
