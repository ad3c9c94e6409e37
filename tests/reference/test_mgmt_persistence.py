"""The management API's state survives a restart of the reference (data dir on disk)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import challenge_token, http_destination, job_body, log_rule


def _api(ref: Any) -> RulesApiClient:
    return RulesApiClient.from_surface(ref.ready["surfaces"]["rules_api"])


def test_rulesets_and_jobs_survive_a_restart(launch: Callable[..., Any], tmp_path: Path) -> None:
    data_dir = tmp_path / "mgmt-data"
    first = launch(data_dir=data_dir)
    api = _api(first)
    ruleset = api.put_entrypoint({"rules": [log_rule(cookies=("Keep",))]}).assert_envelope_ok()
    with http_destination("ec-persist") as (url, received):
        api.request_ownership(url).assert_envelope_ok(200)
        job = api.create_job(job_body("ec-persist", url, challenge_token(received)))
        job_id = job.assert_envelope_ok()["id"]
    first.stop()
    again = _api(launch(data_dir=data_dir))
    assert again.get_ruleset(ruleset["id"]).assert_envelope_ok(200) == ruleset
    assert again.get_job(job_id).assert_envelope_ok(200)["name"] == "ec-persist-custom-fields"


def test_deviation_profile_fields_are_known(launch: Callable[..., Any]) -> None:
    ref = launch("--profile", "deviate_bare_result=true")
    reply = _api(ref).list_rulesets()
    assert reply.status == 200 and reply.json == []
