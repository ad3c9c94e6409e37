"""Management API bodies whose objects repeat a name: refused 400, not "the last value wins".

RFC 8259 section 4 says an object's names SHOULD be unique and leaves a repeated name's meaning
to the parser; I-JSON (RFC 7493) forbids it. What the provider does is not public, so this is
the reference's own choice (docs/reference-choices.md, "JSON bodies"), not a catalog rule: a
body like `{"action": "allow", "action": "log"}` meant something the client cannot know.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
from reliability.refproc import RefProcess

TIMEOUT = (5.0, 20.0)

# each repeats a name in one object: at the top, in a nested object, in an object of an array
DUPLICATES = {
    "top": '{"name": "a", "name": "b", "kind": "zone", "phase": "http_log_custom_fields",'
    ' "rules": []}',
    "nested": '{"destination_conf": "s3://bucket/logs", "dataset": "http_requests",'
    ' "output_options": {"field_names": ["RayID"], "field_names": ["EdgeStartTimestamp"]}}',
    "in-array": '{"rules": [{"action": "log_custom_field", "action": "block",'
    ' "expression": "true"}]}',
}
ROUTES = {"top": "rulesets", "nested": "logpush/jobs", "in-array": "rulesets"}


@pytest.fixture(scope="module")
def mgmt(ref: RefProcess) -> dict[str, Any]:
    return ref.zone_api()


@pytest.mark.parametrize("name", sorted(DUPLICATES))
def test_repeated_name_is_a_400_naming_it(mgmt: dict[str, Any], name: str) -> None:
    """A repeated name anywhere in the body is 400 invalid_json (6007), its message naming it."""
    url = f"{mgmt['base']}/{ROUTES[name]}"
    reply = requests.post(url, data=DUPLICATES[name], headers=mgmt["headers"], timeout=TIMEOUT)
    assert reply.status_code == 400, f"{name}: {reply.status_code} {reply.text[:300]}"
    document = reply.json()
    assert document["success"] is False, document
    error = document["errors"][0]
    assert error["code"] == 6007 and "duplicate" in error["message"], document


def test_same_name_in_different_objects_is_fine(mgmt: dict[str, Any]) -> None:
    """Only a repeat inside one object is refused: two rules, each with its own `name`s, pass."""
    rule = {
        "action": "log_custom_field",
        "expression": "true",
        "action_parameters": {"request_fields": [{"name": "x-a"}, {"name": "x-b"}]},
    }
    url = f"{mgmt['base']}/rulesets/phases/http_log_custom_fields/entrypoint"
    body = json.dumps({"rules": [rule, rule]})
    reply = requests.put(url, data=body, headers=mgmt["headers"], timeout=TIMEOUT)
    assert reply.status_code == 200 and reply.json()["success"] is True, reply.text[:300]
