"""Adversarial battery, JSON surfaces (issue 16 rows 6, 7, 10, 11 and their class).

Every JSON body the reference parses (bindings bridge, management and rules API, gateway) gets
the same hostile documents: nested past any sane depth, huge, not JSON by RFC 8259 (NaN,
Infinity), not UTF-8. Each must be a clear 4xx in the surface's own format, never a 500 and
never a hang. The bridge must refuse a caller without its token before it touches any data.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
import requests
from reliability.refproc import RefProcess

TIMEOUT = (5.0, 20.0)
BRIDGE_BUCKET = "conformance-bindings"  # the bridge's bound bucket: it never creates others
DEEP = 990  # under CPython's recursion limit, so json.loads itself still succeeds


def _deep(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def _bridge_doc(op: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"op": op, "bucket": BRIDGE_BUCKET, "args": args}


@pytest.fixture(scope="module")
def bridge(ref: RefProcess) -> dict[str, Any]:
    """The bridge's URL and auth header (none when the ready file has no token: then the
    token test fails, and the others still reach the parser)."""
    surface = ref.surface("bindings")
    token = surface.get("token")
    return {
        "url": surface["url"] + "/bridge",
        "auth": {"Authorization": f"Bearer {token}"} if token else {},
    }


@pytest.fixture(scope="module")
def mgmt(ref: RefProcess) -> dict[str, Any]:
    return ref.zone_api()


def _post(url: str, data: bytes | str, headers: dict[str, str]) -> requests.Response:
    return requests.post(url, data=data, headers=headers, timeout=TIMEOUT)


# -- row 11: the bridge takes a credential ---------------------------------------------------


@pytest.mark.parametrize(
    "auth",
    [None, "Bearer wrong-token", "Basic Zm9vOmJhcg==", "Bearer "],
    ids=["none", "wrong", "basic", "empty"],
)
def test_bridge_refuses_callers_without_its_token(
    ref: RefProcess, bridge: dict[str, Any], auth: str | None
) -> None:
    """Row 11: any local process could overwrite account data through the bridge."""
    assert bridge["auth"], "the ready file's bindings surface carries no token"
    key = f"no-token-{abs(hash(auth))}"
    put = _bridge_doc("put", {"key": key, "value": base64.b64encode(b"evil").decode()})
    headers = {"Authorization": auth} if auth else {}
    refused = requests.post(bridge["url"], json=put, headers=headers, timeout=TIMEOUT)
    assert refused.status_code == 401, refused.text[:300]
    assert refused.json()["error"]["name"] == "BridgeAuthError"
    got = requests.post(
        bridge["url"], json=_bridge_doc("head", {"key": key}), headers=bridge["auth"]
    )
    assert got.status_code == 200 and got.json() == {"result": None}, "the refused put wrote"


def test_ready_file_is_owner_only(ref: RefProcess) -> None:
    """The ready file carries the token: only its owner may read it."""
    ready = sorted(ref.data_dir.parent.glob(f"{ref.data_dir.name}-ready-*.json"))
    assert ready and all(p.stat().st_mode & 0o077 == 0 for p in ready), ready


def test_bridge_with_its_token_works(bridge: dict[str, Any]) -> None:
    put = _bridge_doc("put", {"key": "with-token", "value": base64.b64encode(b"ok").decode()})
    reply = requests.post(bridge["url"], json=put, headers=bridge["auth"], timeout=TIMEOUT)
    assert reply.status_code == 200 and reply.json()["result"]["size"] == 2, reply.text[:300]


# -- row 6 and its class: deep, huge, non-JSON bodies on every JSON surface -------------------

HOSTILE_BODIES = {
    "deep-array": _deep(DEEP),
    "deep-object": '{"a":' * DEEP + "1" + "}" * DEEP,
    "deep-in-args": '{"op":"put","bucket":"battery-json","args":{"options":' + _deep(DEEP) + "}}",
    "deep-unclosed": "[" * 200_000,
    "nan": '{"op":"head","bucket":"battery-json","args":{"key":NaN},"id":NaN}',
    "infinity": '{"op":"head","bucket":"battery-json","args":{"key":"k"},"x":-Infinity}',
    "not-utf8": b'{"op":"head","key":"\xff\xfe"}',
    # valid RFC 8259 text, but no UTF-8 string: I-JSON (RFC 7493) refuses it, and so do we
    "lone-surrogate": '{"op":"head","bucket":"battery-json","args":{"key":"\\ud800"}}',
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BODIES))
def test_bridge_hostile_json_is_a_clean_4xx(bridge: dict[str, Any], name: str) -> None:
    """Row 6: a bridge body nested ~990 deep was a 500 RecursionError."""
    body = HOSTILE_BODIES[name]
    reply = _post(bridge["url"], body, {**bridge["auth"], "Content-Type": "application/json"})
    assert reply.status_code < 500, f"{name}: {reply.status_code} {reply.text[:300]}"
    error = reply.json().get("error")
    assert reply.status_code == 400 and error and error["name"] == "BridgeError", reply.text


def test_bridge_huge_body_is_refused_without_reading_it(bridge: dict[str, Any]) -> None:
    headers = {**bridge["auth"], "Content-Type": "application/json"}
    headers["Content-Length"] = str(1 << 40)  # declared 1 TiB, body never sent
    reply = requests.post(bridge["url"], data=b"{}", headers=headers, timeout=TIMEOUT)
    assert reply.status_code in (400, 413), reply.text[:200]


MGMT_POSTS = ["rulesets", "logpush/ownership", "logpush/jobs"]


@pytest.mark.parametrize("path", MGMT_POSTS)
@pytest.mark.parametrize("name", sorted(HOSTILE_BODIES))
def test_mgmt_hostile_json_is_a_clean_4xx(mgmt: dict[str, Any], path: str, name: str) -> None:
    body = HOSTILE_BODIES[name]
    reply = _post(f"{mgmt['base']}/{path}", body, mgmt["headers"])
    assert reply.status_code < 500, f"{path} {name}: {reply.status_code} {reply.text[:300]}"
    document = reply.json()
    assert document["success"] is False and document["errors"], document
    assert document["errors"][0]["code"] == 6007, document  # invalid_json


def test_mgmt_huge_body_is_413(mgmt: dict[str, Any]) -> None:
    body = '{"name": "' + "x" * (2 << 20) + '"}'
    reply = _post(f"{mgmt['base']}/rulesets", body, mgmt["headers"])
    assert reply.status_code == 413, reply.text[:200]
    assert reply.json()["success"] is False


# -- row 10: NaN is not JSON ------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '{"jsonrpc":"2.0","id":NaN,"method":"eth_chainId"}',
        '{"jsonrpc":"2.0","id":Infinity,"method":"eth_chainId"}',
        '{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[-Infinity]}',
        '[{"jsonrpc":"2.0","id":NaN,"method":"eth_chainId"}]',
    ],
    ids=["id-nan", "id-infinity", "param-minus-infinity", "batch-nan"],
)
def test_gateway_nan_is_a_parse_error(ref: RefProcess, body: str) -> None:
    """Row 10: `"id": NaN` was -32603. RFC 8259 has no NaN: the text is not JSON, -32700."""
    url = ref.surface("gateway")["url"] + "/v1/sepolia"
    reply = _post(url, body, {"Content-Type": "application/json"})
    assert reply.status_code == 200, reply.text[:300]
    document = reply.json()
    assert document["error"]["code"] == -32700 and document["id"] is None, document


@pytest.mark.parametrize(
    "name", ["deep-array", "deep-object", "deep-unclosed", "not-utf8", "lone-surrogate"]
)
def test_gateway_hostile_json_is_a_parse_error(ref: RefProcess, name: str) -> None:
    url = ref.surface("gateway")["url"] + "/v1/sepolia"
    reply = _post(url, HOSTILE_BODIES[name], {"Content-Type": "application/json"})
    assert reply.status_code == 200 and reply.json()["error"]["code"] == -32700, reply.text[:300]


# -- row 7: destination_conf is validated strictly ---------------------------------------------

BAD_DESTINATIONS = {
    "nul": "s3://bucket/logs\x00x",
    "long-segment": "s3://bucket/" + "n" * 300,
    "long-host": "s3://" + "b" * 300 + "/logs",
    "lone-surrogate": "s3://bucket/\ud800",
    "dotdot-host": "s3://../x",
    "dot-host": "s3://./x",
    "userinfo": "s3://user:pw@bucket/x",
    "space": "s3://bucket/a b",
    "dotdot-path": "r2://bucket/a/../../b",
    "newline": "https://example.com/\r\nX-Injected: 1",
    "huge": "s3://bucket/" + "a/" * 20_000,
}


@pytest.mark.parametrize("route", ["logpush/ownership", "logpush/jobs"])
@pytest.mark.parametrize("name", sorted(BAD_DESTINATIONS))
def test_bad_destination_is_a_400_in_the_envelope(
    ref: RefProcess, mgmt: dict[str, Any], route: str, name: str
) -> None:
    """Row 7: NUL, a 300-byte name or a lone surrogate were 500s; `s3://../x` was accepted."""
    import json

    body = json.dumps({"destination_conf": BAD_DESTINATIONS[name], "dataset": "http_requests"})
    reply = _post(f"{mgmt['base']}/{route}", body, mgmt["headers"])
    assert reply.status_code == 400, f"{name}: {reply.status_code} {reply.text[:300]}"
    document = reply.json()
    assert document["success"] is False, document
    error = document["errors"][0]
    # a lone surrogate is refused already as JSON (invalid_json, 6007), the rest by the check
    pointed = error.get("source", {}).get("pointer") == "/destination_conf"
    assert pointed or (name == "lone-surrogate" and error["code"] == 6007), document
    ownership = ref.data_dir / "ownership"
    if ownership.exists():
        assert all(ownership in p.resolve().parents for p in ownership.rglob("*"))


def test_good_destinations_still_accepted(mgmt: dict[str, Any]) -> None:
    for destination in ["s3://logs-bucket/http/{DATE}?region=auto", "gs://b.c-d/x/y"]:
        reply = requests.post(
            f"{mgmt['base']}/logpush/ownership",
            json={"destination_conf": destination},
            headers=mgmt["headers"],
            timeout=TIMEOUT,
        )
        assert reply.status_code == 200 and reply.json()["success"], reply.text[:300]
