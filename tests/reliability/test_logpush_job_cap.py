"""Log push jobs per zone are capped (issue 26, fresh adversarial pass).

Each job keeps its own budget of pending lines (`log_pending_max_lines` / `_bytes`), so on main
a client that created jobs without end made memory unbounded (and every job's copy of every
edge line). The reference now allows `logpush_max_jobs_per_zone` (4, the provider's documented
limit) and refuses the next with 400 `1006`; deleting a job makes room again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from reliability.refproc import RefProcess

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import challenge_token, http_destination, job_body

CAP = 4


@pytest.fixture
def api(ref: RefProcess) -> Iterator[RulesApiClient]:
    client = RulesApiClient.from_surface(ref.surface("rules_api"))
    yield client
    for job in client.list_jobs().result or []:
        client.delete_job(job["id"])


def _body(api: RulesApiClient, destination: tuple[str, list[Any]], number: int) -> dict[str, Any]:
    url, received = destination
    api.request_ownership(url).assert_envelope_ok(200)
    return job_body("ec-cap", url, challenge_token(received), name=f"ec-cap-{number}")


def test_jobs_past_the_cap_are_refused(api: RulesApiClient) -> None:
    with http_destination("ec-cap") as destination:
        created = [api.create_job(_body(api, destination, n)) for n in range(CAP)]
        for reply in created:
            reply.assert_envelope_ok()
        refused = api.create_job(_body(api, destination, CAP))
        error = refused.assert_envelope_error(400, code=1006)
        assert "exceeded max jobs allowed" in error["message"], error
        listed = api.list_jobs().assert_envelope_ok()
        assert sorted(j["id"] for j in listed) == sorted(r.result["id"] for r in created)
        api.delete_job(created[0].result["id"]).assert_envelope_ok()
        api.create_job(_body(api, destination, CAP + 1)).assert_envelope_ok()
        api.create_job(_body(api, destination, CAP + 2)).assert_envelope_error(400, code=1006)
