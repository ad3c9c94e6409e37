"""Ownership challenges are bound to their destination, also when a job's destination changes.

An implementer may accept any token it ever issued (not the one sent to *this* destination),
or check the challenge on create only, so a PUT moves a job to a destination nobody proved.
A PUT that changes one field must keep the others.
"""

from __future__ import annotations

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import (
    challenge_token,
    http_destination,
    job_body,
    job_cleanup,
)


@pytest.mark.rule("logs.logpush.ownership-challenge-required")
def test_token_of_another_destination_is_refused(rules_api: RulesApiClient, run_prefix: str):
    """The token delivered to destination A does not create a job for destination B."""
    with (
        http_destination(run_prefix) as (url_a, got_a),
        http_destination(run_prefix) as (url_b, got_b),
        job_cleanup(rules_api, run_prefix),
    ):
        rules_api.request_ownership(url_a).assert_envelope_ok(200)
        rules_api.request_ownership(url_b).assert_envelope_ok(200)
        token_a, token_b = challenge_token(got_a), challenge_token(got_b)
        assert token_a != token_b, "two destinations got the same challenge"
        reply = rules_api.create_job(job_body(run_prefix, url_b, token_a))
        reply.assert_envelope_error(400, pointer="/ownership_challenge")
        rules_api.create_job(job_body(run_prefix, url_b, token_b)).assert_envelope_ok()


@pytest.mark.rule("logs.logpush.ownership-challenge-required", "logs.logpush.job-update")
def test_moving_a_job_needs_the_new_destinations_challenge(
    rules_api: RulesApiClient, run_prefix: str
) -> None:
    """PUT to another destination without its token (or with the old one) is 400 and keeps
    the job where it was; with the new destination's token the job moves."""
    with (
        http_destination(run_prefix) as (url_a, got_a),
        http_destination(run_prefix) as (url_b, got_b),
        job_cleanup(rules_api, run_prefix),
    ):
        rules_api.request_ownership(url_a).assert_envelope_ok(200)
        token_a = challenge_token(got_a)
        job = rules_api.create_job(job_body(run_prefix, url_a, token_a)).assert_envelope_ok()
        rules_api.update_job(job["id"], {"destination_conf": url_b}).assert_envelope_error(
            400, pointer="/ownership_challenge"
        )
        moved = {"destination_conf": url_b, "ownership_challenge": token_a}
        rules_api.update_job(job["id"], moved).assert_envelope_error(
            400, pointer="/ownership_challenge"
        )
        kept = rules_api.get_job(job["id"]).assert_envelope_ok(200)
        assert kept["destination_conf"] == url_a, kept
        rules_api.request_ownership(url_b).assert_envelope_ok(200)
        moved["ownership_challenge"] = challenge_token(got_b)
        updated = rules_api.update_job(job["id"], moved).assert_envelope_ok(200)
        assert updated["destination_conf"] == url_b, updated
        assert rules_api.get_job(job["id"]).assert_envelope_ok(200)["destination_conf"] == url_b


@pytest.mark.rule("logs.logpush.job-update", "logs.logpush.job-name")
def test_update_of_one_field_keeps_the_others(rules_api: RulesApiClient, run_prefix: str):
    """A PUT with only a new name keeps destination, dataset and logpull_options; a PUT with
    only new options keeps the new name."""
    with http_destination(run_prefix) as (url, got), job_cleanup(rules_api, run_prefix):
        rules_api.request_ownership(url).assert_envelope_ok(200)
        body = job_body(run_prefix, url, challenge_token(got))
        job = rules_api.create_job(body).assert_envelope_ok()
        name = f"{run_prefix}-renamed"
        rules_api.update_job(job["id"], {"name": name}).assert_envelope_ok(200)
        got_job = rules_api.get_job(job["id"]).assert_envelope_ok(200)
        assert got_job["name"] == name, got_job
        for key in ("destination_conf", "dataset", "logpull_options"):
            assert got_job[key] == body[key], (key, got_job)
        options = "fields=RayID&timestamps=unix"
        rules_api.update_job(job["id"], {"logpull_options": options}).assert_envelope_ok(200)
        again = rules_api.get_job(job["id"]).assert_envelope_ok(200)
        assert again["name"] == name and again["logpull_options"] == options, again


@pytest.mark.rule("logs.logpush.job-update")
def test_update_turns_the_job_off_and_on(rules_api: RulesApiClient, run_prefix: str) -> None:
    """`enabled` is a job field a PUT changes (the provider's job API): a PUT of enabled false
    reads back false, a later PUT of true reads back true, and the other fields stay."""
    with http_destination(run_prefix) as (url, got), job_cleanup(rules_api, run_prefix):
        rules_api.request_ownership(url).assert_envelope_ok(200)
        body = job_body(run_prefix, url, challenge_token(got), enabled=True)
        job = rules_api.create_job(body).assert_envelope_ok()
        for enabled in (False, True):
            rules_api.update_job(job["id"], {"enabled": enabled}).assert_envelope_ok(200)
            shown = rules_api.get_job(job["id"]).assert_envelope_ok(200)
            assert shown.get("enabled") is enabled, f"after a PUT of enabled {enabled}: {shown}"
            assert shown["logpull_options"] == body["logpull_options"], shown
