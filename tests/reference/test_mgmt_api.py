"""Management API of the reference: routing, refusals and log push validation.

The suite checks what the catalog states; these tests pin the reference's own choices where
the spec is silent (logpull_options vocabulary, destinations, datasets, routing errors).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import (
    challenge_token,
    http_destination,
    job_body,
    job_cleanup,
    log_rule,
)

_ids = itertools.count()


@pytest.fixture(scope="module")
def api(reference: Any) -> RulesApiClient:
    return RulesApiClient.from_surface(reference.ready["surfaces"]["rules_api"])


@pytest.fixture
def prefix() -> str:
    return f"ec-mgmt{next(_ids)}"


def test_unknown_zone_is_404_in_the_envelope(api: RulesApiClient) -> None:
    reply = api.request("GET", "/zones/" + "0" * 32 + "/rulesets")
    reply.assert_envelope_error(404, code=7003)


def test_unknown_route_and_method_answer_in_the_envelope(api: RulesApiClient) -> None:
    api.request("GET", api.zone("/nothing")).assert_envelope_error(404, code=7000)
    api.request("PATCH", api.zone("/rulesets")).assert_envelope_error(405)


def test_missing_ruleset_and_job_are_404(api: RulesApiClient) -> None:
    api.get_ruleset("f" * 32).assert_envelope_error(404)
    api.get_job(999999).assert_envelope_error(404)
    api.get_job("abc").assert_envelope_error(404)


def test_entrypoint_put_creates_then_replaces(api: RulesApiClient) -> None:
    found = api.find_zone_ruleset()
    if found is not None:
        api.delete_ruleset(found["id"]).assert_no_content()
    api.get_entrypoint().assert_envelope_error(404)
    created = api.put_entrypoint({"rules": [log_rule(request=("x-a",))]}).assert_envelope_ok()
    assert (created["kind"], created["version"]) == ("zone", "1")
    again = api.put_entrypoint({"rules": [log_rule(cookies=("B",))]}).assert_envelope_ok()
    assert again["id"] == created["id"] and again["version"] == "2"
    assert api.get_entrypoint().assert_envelope_ok(200)["rules"] == again["rules"]
    api.delete_ruleset(created["id"]).assert_no_content()


def test_rule_sent_with_its_id_keeps_it(api: RulesApiClient) -> None:
    ruleset = api.put_entrypoint({"rules": [log_rule(request=("x-a",))]}).assert_envelope_ok()
    rule = ruleset["rules"][0]
    kept = dict(log_rule(request=("x-b",)), id=rule["id"])
    again = api.put_entrypoint({"rules": [kept]}).assert_envelope_ok()
    assert again["rules"][0]["id"] == rule["id"]
    assert int(again["rules"][0]["version"]) == int(rule["version"]) + 1
    api.delete_ruleset(ruleset["id"]).assert_no_content()


BAD_OPTIONS = {
    "unknown-field": "fields=RayID,NoSuchField&timestamps=rfc3339",
    "unknown-timestamps": "fields=RayID,RequestHeaders&timestamps=iso9999",
    "empty-field": "fields=RayID,,Cookies&timestamps=rfc3339",
    "unknown-option": "fields=RayID&colour=blue",
    "no-fields": "timestamps=rfc3339",
}


@pytest.mark.parametrize("options", list(BAD_OPTIONS.values()), ids=list(BAD_OPTIONS))
def test_bad_logpull_options_are_refused(api: RulesApiClient, prefix: str, options: str) -> None:
    with http_destination(prefix) as (url, received), job_cleanup(api, prefix):
        api.request_ownership(url).assert_envelope_ok(200)
        body = job_body(prefix, url, challenge_token(received), logpull_options=options)
        api.create_job(body).assert_envelope_error(400, pointer="/logpull_options")


@pytest.mark.parametrize(
    ("dataset", "options"),
    [
        ("firewall_events", "fields=RequestHeaders&timestamps=unix"),  # custom fields elsewhere
        ("no_such_dataset", "fields=RayID&timestamps=unix"),
    ],
)
def test_bad_dataset_is_refused(
    api: RulesApiClient, prefix: str, dataset: str, options: str
) -> None:
    with http_destination(prefix) as (url, received), job_cleanup(api, prefix):
        api.request_ownership(url).assert_envelope_ok(200)
        body = job_body(
            prefix, url, challenge_token(received), dataset=dataset, logpull_options=options
        )
        api.create_job(body).assert_envelope_error(400, pointer="/dataset")


@pytest.mark.parametrize("destination", ["ftp://example.com/logs", "not a uri", "", "r2://"])
def test_bad_destination_is_refused(api: RulesApiClient, destination: str) -> None:
    api.request_ownership(destination).assert_envelope_error(400, pointer="/destination_conf")


def test_r2_ownership_challenge_lands_in_the_data_dir(reference: Any, api: RulesApiClient) -> None:
    result = api.request_ownership("r2://logs-bucket/http/{DATE}").assert_envelope_ok(200)
    written = reference.data_dir / "ownership" / "r2" / "logs-bucket" / result["filename"]
    assert written.read_text(encoding="utf-8")


def test_job_update_refuses_a_new_dataset(api: RulesApiClient, prefix: str) -> None:
    with http_destination(prefix) as (url, received), job_cleanup(api, prefix):
        api.request_ownership(url).assert_envelope_ok(200)
        job = api.create_job(job_body(prefix, url, challenge_token(received))).assert_envelope_ok()
        reply = api.update_job(job["id"], {"dataset": "dns_logs"})
        reply.assert_envelope_error(400, pointer="/dataset")
        api.update_job(job["id"], {"enabled": "yes"}).assert_envelope_error(400, pointer="/enabled")
