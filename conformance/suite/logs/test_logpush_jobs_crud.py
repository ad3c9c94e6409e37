"""Log push jobs: create with custom fields, read, update, list and delete."""

from __future__ import annotations

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import (
    assert_schema,
    challenge_token,
    http_destination,
    job_body,
    job_cleanup,
)


@pytest.mark.rule(
    "logs.logpush.create-job",
    "logs.logpush.create-envelope",
    "logs.logpush.job-update",
    "logs.logpush.job-name",
    "logs.logpush.destination-conf",
    "logs.logpush.dataset",
    "logs.logpush.logpull-options-fields",
    "logs.logpush.logpull-options-timestamps",
    "logs.logpush.ownership-challenge",
)
def test_job_lifecycle(rules_api: RulesApiClient, run_prefix: str) -> None:
    """A job is created with an integer id, found by GET and list, updated by PUT, deleted."""
    with http_destination(run_prefix) as (base, received), job_cleanup(rules_api, run_prefix):
        url = base + "?header_X-Edge-Conformance=1"  # destination query options are kept
        rules_api.request_ownership(url).assert_envelope_ok(200)
        body = job_body(run_prefix, url, challenge_token(received))
        reply = rules_api.create_job(body)
        job = reply.assert_envelope_ok()
        assert_schema("envelope", reply.json)
        assert_schema("logpush_job", job)
        assert isinstance(job["id"], int) and not isinstance(job["id"], bool), job
        for key in ("name", "destination_conf", "dataset", "logpull_options"):
            assert job.get(key) == body[key], (key, job)
        fetched = rules_api.get_job(job["id"]).assert_envelope_ok(200)
        assert fetched["id"] == job["id"]
        listed = rules_api.list_jobs().assert_envelope_ok(200)
        assert job["id"] in [item["id"] for item in listed], listed
        options = "fields=RayID,EdgeStartTimestamp,Cookies&timestamps=unixnano"
        update = {"logpull_options": options}
        updated = rules_api.update_job(job["id"], update).assert_envelope_ok(200)
        assert updated["logpull_options"] == options, updated
        again = rules_api.get_job(job["id"]).assert_envelope_ok(200)
        assert again["logpull_options"] == options, again
        rules_api.delete_job(job["id"]).assert_envelope_ok(200)
        rules_api.get_job(job["id"]).assert_envelope_error(404)
