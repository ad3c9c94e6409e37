"""Destination ownership: the challenge is delivered to the destination and gates job creation."""

from __future__ import annotations

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import (
    challenge_token,
    http_destination,
    job_body,
    job_cleanup,
)


@pytest.mark.rule("logs.logpush.ownership-challenge")
def test_ownership_challenge_is_delivered(rules_api: RulesApiClient, run_prefix: str) -> None:
    """POST ownership answers {filename, valid, message} and writes the challenge there."""
    with http_destination(run_prefix) as (url, received):
        result = rules_api.request_ownership(url).assert_envelope_ok(200)
        assert isinstance(result.get("filename"), str) and result["filename"], result
        assert isinstance(result.get("valid"), bool), result
        assert isinstance(result.get("message"), str), result
        assert challenge_token(received), "an empty challenge was delivered"


@pytest.mark.rule("logs.logpush.ownership-challenge-required")
def test_job_needs_the_matching_challenge(rules_api: RulesApiClient, run_prefix: str) -> None:
    """A job without, or with a wrong, ownership_challenge is 400 pointing at it."""
    with http_destination(run_prefix) as (url, received), job_cleanup(rules_api, run_prefix):
        rules_api.request_ownership(url).assert_envelope_ok(200)
        token = challenge_token(received)
        body = job_body(run_prefix, url, token[::-1] + "x")
        reply = rules_api.create_job(body)
        reply.assert_envelope_error(400, pointer="/ownership_challenge")
        missing = {k: v for k, v in body.items() if k != "ownership_challenge"}
        rules_api.create_job(missing).assert_envelope_error(400, pointer="/ownership_challenge")
