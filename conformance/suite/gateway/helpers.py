"""Shared by the gateway tests: schema checks and the network a test runs against."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conformance.clients.gateway import GatewayClient, Reply

SEPOLIA = "sepolia"
RINKEBY = "rinkeby"
SEPOLIA_CHAIN_ID = 11155111
RINKEBY_CHAIN_ID = 4
# the request shape the spec shows: a block number as a hex string, then a boolean
SPEC_METHOD = "eth_getBlockByNumber"
SPEC_PARAMS: list[Any] = ["0x0", True]


@cache
def _schema(name: str) -> dict[str, Any]:
    text = (resources.files("conformance.schemas.jsonrpc") / name).read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


def schema_errors(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> list[str]:
    full = {**schema, "$defs": root["$defs"]}
    validator = Draft202012Validator(full)
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}"
        for e in validator.iter_errors(value)
    ]


def check_result(method: str, value: Any) -> None:
    """Fails the test when a result does not match our execution API schema for `method`."""
    root = _schema("eth.schema.json")
    errors = schema_errors(value, {"$ref": f"#/$defs/{method}"}, root)
    assert not errors, f"{method} result breaks the schema: " + "; ".join(errors[:5])


def check_response(doc: Any) -> None:
    """Fails the test when a document is not a JSON-RPC 2.0 response object."""
    root = _schema("response.schema.json")
    errors = schema_errors(doc, {"oneOf": root["oneOf"]}, root)
    assert not errors, "not a JSON-RPC 2.0 response object: " + "; ".join(errors[:5])


def need(gateway: GatewayClient, network: str) -> None:
    if not gateway.offers(network):
        pytest.skip("N/A: network not offered by the target")


def need_behaviour(gateway: GatewayClient, behaviour: str) -> None:
    """N/A when the target file declares it does not offer this provider-gateway behaviour."""
    if not gateway.offers_behaviour(behaviour):
        pytest.skip(f"N/A: the target declares no provider-gateway {behaviour} (provider_gateway)")


def served_network(gateway: GatewayClient) -> str:
    """Sepolia, the network the spec says is fully supported: where method tests run."""
    need(gateway, SEPOLIA)
    return SEPOLIA


def result_of(gateway: GatewayClient, method: str, params: list[Any] | None = None) -> Any:
    reply = gateway.call(served_network(gateway), method, [] if params is None else params)
    check_response(reply.json)
    return reply.result()


def is_success(reply: Reply) -> bool:
    return reply.status == 200 and isinstance(reply.json, dict) and "result" in reply.json


# how far behind the newest block a test reads: a gateway that spreads reads over nodes may
# answer from one a few blocks behind the node that named the newest block (a chain younger
# than twice that is a local one, served by one node: read from the newest)
SETTLED = 8


def settled_block(gateway: GatewayClient) -> int:
    """The number of the newest block every node of a spread gateway has seen."""
    newest = int(result_of(gateway, "eth_blockNumber"), 16)
    return newest if newest < 2 * SETTLED else newest - SETTLED
