"""The official `cloudflare` Python SDK against the reference (issue 5, item 5).

A real client catches what our own client cannot: path shapes, envelope parsing, pagination and
model validation as the provider's users see them. The SDK retries 409/5xx by default, so
`max_retries=0` keeps each call a single exchange. The zone is left as found.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.suite.logs.helpers import challenge_token, entrypoint_guard, http_destination

cloudflare = pytest.importorskip("cloudflare")
from cloudflare.types.rulesets import (  # noqa: E402  (after the importorskip)
    phase_update_response,
    ruleset_create_response,
    ruleset_update_response,
)

_ids = itertools.count()


@pytest.fixture(scope="module")
def surface(reference: Any) -> dict[str, Any]:
    found: dict[str, Any] = reference.ready["surfaces"]["rules_api"]
    return found


@pytest.fixture(scope="module")
def client(surface: dict[str, Any]) -> Any:
    return cloudflare.Cloudflare(
        api_email=surface["email"],
        api_key=surface["api_key"],
        base_url=surface["base_url"],
        max_retries=0,
        timeout=15.0,
    )


@pytest.fixture
def clean_zone(surface: dict[str, Any]) -> Iterator[RulesApiClient]:
    """No log custom fields ruleset at the start; the zone's entry point restored afterwards."""
    api = RulesApiClient.from_surface(surface)
    with entrypoint_guard(api):
        found = api.find_zone_ruleset()
        if found is not None:
            api.delete_ruleset(str(found["id"])).assert_no_content()
        yield api


def _ruleset(value: Any, module: Any) -> Any:
    """The SDK's own Ruleset model of a response.

    Its response types are `Union[Ruleset, Optional[object]]`, which it hands back as a plain
    dict; validating against the SDK's published model keeps the check as strict as the SDK.
    """
    model = module.Ruleset
    return value if isinstance(value, model) else model.model_validate(value)


def _log_rule(request: str, response: str, cookie: str) -> dict[str, Any]:
    return {
        "action": "log_custom_field",
        "expression": "true",
        "description": "sdk",
        "action_parameters": {
            "request_fields": [{"name": request}],
            "response_fields": [{"name": response}],
            "cookie_fields": [{"name": cookie}],
        },
    }


def test_sdk_lists_creates_and_updates_the_entrypoint_ruleset(
    client: Any, surface: dict[str, Any], clean_zone: RulesApiClient
) -> None:
    zone = surface["zone_id"]
    listed = list(client.rulesets.list(zone_id=zone))
    assert all(item.phase != LOG_PHASE or item.kind != "zone" for item in listed)

    created = _ruleset(
        client.rulesets.create(
            zone_id=zone,
            name="sdk-entrypoint",
            kind="zone",
            description="created by the cloudflare SDK",
            phase=LOG_PHASE,
        ),
        ruleset_create_response,
    )
    assert (created.kind, created.phase) == ("zone", LOG_PHASE)
    assert len(created.id) == 32
    assert created.id in [item.id for item in client.rulesets.list(zone_id=zone)]

    updated = _ruleset(
        client.rulesets.update(
            created.id, zone_id=zone, rules=[_log_rule("user-agent", "content-type", "SessionId")]
        ),
        ruleset_update_response,
    )
    assert int(updated.version) > int(created.version)
    (rule,) = updated.rules
    assert rule.action == "log_custom_field" and rule.expression == "true"
    assert rule.id and rule.version and rule.last_updated is not None
    params = rule.action_parameters
    assert [f.name for f in params.cookie_fields] == ["SessionId"]

    again = _ruleset(
        client.rulesets.phases.update(
            LOG_PHASE, zone_id=zone, rules=[_log_rule("x-request-id", "server", "Theme")]
        ),
        phase_update_response,
    )
    assert again.id == created.id and int(again.version) > int(updated.version)
    fetched = client.rulesets.phases.get(LOG_PHASE, zone_id=zone)
    names = fetched.rules[0].action_parameters
    assert [f.name for f in names.request_fields] == ["x-request-id"]
    assert [f.name for f in names.response_fields] == ["server"]
    assert [f.name for f in names.cookie_fields] == ["Theme"]

    assert client.rulesets.delete(created.id, zone_id=zone) is None  # 204, no body
    assert created.id not in [item.id for item in client.rulesets.list(zone_id=zone)]


def test_sdk_refusal_surfaces_as_a_bad_request(
    client: Any, surface: dict[str, Any], clean_zone: RulesApiClient
) -> None:
    with pytest.raises(cloudflare.BadRequestError) as caught:
        client.rulesets.phases.update(
            LOG_PHASE, zone_id=surface["zone_id"], rules=[_log_rule("User-Agent", "server", "A")]
        )
    assert caught.value.status_code == 400


def test_sdk_creates_a_log_push_job_after_the_ownership_challenge(
    client: Any, surface: dict[str, Any]
) -> None:
    zone = surface["zone_id"]
    prefix = f"ec-sdk{next(_ids)}"
    options = "fields=RayID,RequestHeaders,ResponseHeaders,Cookies&timestamps=rfc3339"
    with http_destination(prefix) as (url, received):
        challenge = client.logpush.ownership.create(zone_id=zone, destination_conf=url)
        assert challenge is not None and challenge.filename
        job = client.logpush.jobs.create(
            zone_id=zone,
            name=f"{prefix}-job",
            destination_conf=url,
            dataset="http_requests",
            logpull_options=options,
            ownership_challenge=challenge_token(received),
        )
        try:
            assert job is not None and job.id
            assert (job.dataset, job.logpull_options) == ("http_requests", options)
            assert job.id in [j.id for j in client.logpush.jobs.list(zone_id=zone) if j]
            with pytest.raises(cloudflare.BadRequestError):
                client.logpush.jobs.create(
                    zone_id=zone,
                    name=f"{prefix}-wrong",
                    destination_conf=url,
                    dataset="http_requests",
                    logpull_options=options,
                    ownership_challenge="not-the-token",
                )
        finally:
            if job is not None:
                client.logpush.jobs.delete(job.id, zone_id=zone)
