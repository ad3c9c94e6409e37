"""The reference's answers against the provider's published schemas (skipped where absent).

The published schemas are read from the shared checkout for cross-checking only; the suite's
own schemas (conformance/schemas) are written from the spec.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import (
    challenge_token,
    http_destination,
    job_body,
    job_cleanup,
    log_rule,
)

PUBLISHED = Path(__file__).resolve().parents[3] / "shared" / "reference-schemas"


def _validator(name: str) -> Draft202012Validator:
    path = PUBLISHED / f"cf_{name}.schema.json"
    if not path.exists():
        pytest.skip(f"published schema {path.name} not present")
    resources = []
    for other in PUBLISHED.glob("cf_*.schema.json"):
        doc = json.loads(other.read_text(encoding="utf-8"))
        if "$id" in doc:
            resources.append((doc["$id"], Resource.from_contents(doc)))
    registry: Registry = Registry().with_resources(resources)
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")), registry=registry)


def _check(name: str, instance: Any) -> None:
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in _validator(name).iter_errors(instance)
    ]
    assert not errors, f"cf_{name}: " + "; ".join(errors[:5])


@pytest.fixture(scope="module")
def api(reference: Any) -> RulesApiClient:
    return RulesApiClient.from_surface(reference.ready["surfaces"]["rules_api"])


def test_rulesets_match_the_published_schemas(api: RulesApiClient) -> None:
    body = {"rules": [log_rule(request=("x-a",), cookies=("Sess",))]}
    reply = api.put_entrypoint(body)
    _check("envelope_success", reply.json)
    _check("ruleset_response_result", reply.json["result"])
    listed = api.list_rulesets()
    _check("envelope_success", listed.json)
    for item in listed.json["result"]:
        _check("ruleset_list_item", item)
    failed = api.create_ruleset({"name": "x", "kind": "zone", "phase": "http_log_custom_fields"})
    _check("envelope_failure", failed.json)
    api.delete_ruleset(reply.json["result"]["id"]).assert_no_content()


def test_jobs_match_the_published_schemas(api: RulesApiClient) -> None:
    with http_destination("ec-schema") as (url, received), job_cleanup(api, "ec-schema"):
        ownership = api.request_ownership(url)
        _check("logpush_ownership_response", ownership.json)
        body = job_body("ec-schema", url, challenge_token(received))
        _check("logpush_job_create_request", body)
        created = api.create_job(body)
        _check("logpush_job", created.json["result"])
        refused = api.create_job(dict(body, ownership_challenge="wrong"))
        _check("logpush_failure", refused.json)
