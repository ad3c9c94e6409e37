"""Hostile JSON: random bodies for the rules / log push API (authenticated) and the gateway.

Both surfaces validate structured input by hand; a body of the wrong shape (a list where an
object is expected, a number for a string, deep nesting) must be a 4xx in the surface's own
error format, never a 500 or a hang.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
from hypothesis import example, given
from hypothesis import strategies as st
from reliability.refproc import RefProcess

TIMEOUT = (5.0, 20.0)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
)
JSON = st.recursive(
    SCALARS,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=12), kids, max_size=5)
    ),
    max_leaves=25,
)
RULE_KEYS = [
    "name",
    "kind",
    "phase",
    "rules",
    "action",
    "expression",
    "action_parameters",
    "enabled",
    "description",
    "request_fields",
    "response_fields",
    "cookie_fields",
    "destination_conf",
    "dataset",
    "logpull_options",
    "output_options",
    "frequency",
    "ownership_challenge",
    "filter",
    "id",
    "ref",
]
SHAPED = st.recursive(
    SCALARS,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.sampled_from(RULE_KEYS), kids, max_size=6)
    ),
    max_leaves=25,
)
MGMT_ROUTES = [
    ("PUT", "rulesets/phases/http_log_custom_fields/entrypoint"),
    ("POST", "rulesets"),
    ("PUT", "rulesets/{ruleset}"),
    ("POST", "logpush/ownership"),
    ("POST", "logpush/jobs"),
    ("PUT", "logpush/jobs/{job}"),
]


@pytest.fixture(scope="module")
def mgmt(ref: RefProcess) -> dict[str, Any]:
    """Surface plus one existing ruleset and job id, so that updates reach their validation."""
    surface = dict(ref.surface("rules_api"))
    zone = ref.zone_api()
    base, surface["headers"] = zone["base"], zone["headers"]
    listed = requests.get(f"{base}/rulesets", headers=surface["headers"], timeout=TIMEOUT)
    rulesets = listed.json().get("result") or []
    surface["ruleset"] = rulesets[0]["id"] if rulesets else "0" * 32
    surface["job"] = "1"
    surface["zone_base"] = base
    return surface


def _check_envelope(response: requests.Response, where: str) -> None:
    assert response.status_code < 500, f"{where}: {response.status_code} {response.text[:300]}"
    document = response.json()
    assert isinstance(document, dict) and "success" in document, f"{where}: not the envelope"
    if response.status_code >= 400:
        assert document["success"] is False and document.get("errors"), where


@given(route=st.sampled_from(MGMT_ROUTES), body=st.one_of(JSON, SHAPED))
@example(route=MGMT_ROUTES[0], body={"rules": [{"action_parameters": {"request_fields": [1]}}]})
@example(route=MGMT_ROUTES[4], body={"destination_conf": None, "dataset": []})
def test_rules_api_random_json_never_500(
    mgmt: dict[str, Any], route: tuple[str, str], body: Any
) -> None:
    method, path = route
    url = f"{mgmt['zone_base']}/{path.format(ruleset=mgmt['ruleset'], job=mgmt['job'])}"
    response = requests.request(
        method, url, data=json.dumps(body), headers=mgmt["headers"], timeout=TIMEOUT
    )
    _check_envelope(response, f"{method} {path} {body!r:.200}")


@given(route=st.sampled_from(MGMT_ROUTES), body=st.binary(max_size=300))
@example(route=MGMT_ROUTES[1], body=b"[" * 5_000)
@example(route=MGMT_ROUTES[1], body=b"\xff\xfe{}")
def test_rules_api_random_bytes_never_500(
    mgmt: dict[str, Any], route: tuple[str, str], body: bytes
) -> None:
    method, path = route
    url = f"{mgmt['zone_base']}/{path.format(ruleset=mgmt['ruleset'], job=mgmt['job'])}"
    response = requests.request(method, url, data=body, headers=mgmt["headers"], timeout=TIMEOUT)
    _check_envelope(response, f"{method} {path} {body!r:.200}")


RPC = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), SCALARS),
        "id": SCALARS,
        "method": st.one_of(
            st.sampled_from(
                [
                    "eth_blockNumber",
                    "eth_getBlockByNumber",
                    "eth_chainId",
                    "eth_call",
                    "net_version",
                ]
            ),
            SCALARS,
        ),
        "params": JSON,
    },
)


@given(body=st.one_of(RPC, st.lists(RPC, max_size=5), JSON))
@example(body=[])
@example(
    body={
        "jsonrpc": "2.0",
        "id": 1,
        "method": "eth_getBlockByNumber",
        "params": ["0x" + "f" * 80, True],
    }
)
def test_gateway_random_json_never_500(ref: RefProcess, body: Any) -> None:
    url = ref.surface("gateway")["url"] + "/v1/sepolia"
    response = requests.post(
        url, data=json.dumps(body), timeout=TIMEOUT, headers={"Content-Type": "application/json"}
    )
    assert response.status_code < 500, (
        f"{body!r:.200}: {response.status_code} {response.text[:200]}"
    )
    if response.content:
        json.loads(response.content)  # always JSON-RPC (an object or a batch), never text


@given(body=st.binary(max_size=300))
@example(body=b"[" * 5_000)
def test_gateway_random_bytes_never_500(ref: RefProcess, body: bytes) -> None:
    url = ref.surface("gateway")["url"] + "/v1/sepolia"
    response = requests.post(
        url, data=body, timeout=TIMEOUT, headers={"Content-Type": "application/json"}
    )
    assert response.status_code < 500, f"{body!r:.200}: {response.status_code}"
