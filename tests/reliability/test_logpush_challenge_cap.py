"""Ownership challenges per zone are bounded (issue 26 residual).

Every ownership request for a new destination added a token to the zone's stored state, which
is rewritten on every change: a client asking for endless distinct destinations grew it until
the state bound (`mgmt_state_max_bytes`) refused every change to the zone. The reference now
keeps the newest `logpush_max_challenges_per_zone`; an older token no longer creates a job.
"""

from __future__ import annotations

from collections.abc import Callable

from reliability.refproc import RefProcess

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import challenge_token, http_destination, job_body

CAP = 3


def test_only_the_newest_challenges_are_kept(launch: Callable[..., RefProcess]) -> None:
    ref = launch("--profile", f"logpush_max_challenges_per_zone={CAP}")
    api = RulesApiClient.from_surface(ref.surface("rules_api"))
    with http_destination("ec-chal") as (url, received):
        tokens = {}
        for n in range(CAP + 1):
            destination = f"{url}/{n}"
            api.request_ownership(destination).assert_envelope_ok(200)
            tokens[destination] = challenge_token(received)
        oldest, *kept = tokens
        refused = api.create_job(job_body("ec-chal", oldest, tokens[oldest], name="ec-chal-0"))
        assert refused.status == 400, refused.text[:300]
        assert "ownership" in refused.text, refused.text[:300]
        newest = kept[-1]
        made = api.create_job(job_body("ec-chal", newest, tokens[newest], name="ec-chal-1"))
        assert made.status == 200, made.text[:300]
        # asking again for the oldest destination makes it count as new
        api.request_ownership(oldest).assert_envelope_ok(200)
        again = api.create_job(
            job_body("ec-chal", oldest, challenge_token(received), name="ec-chal-2")
        )
        assert again.status == 200, again.text[:300]
