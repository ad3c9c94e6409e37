"""Networks by the last path segment: sepolia served, rinkeby served then retired, migration."""

from __future__ import annotations

import json

import pytest

from conformance.clients.gateway import JSON_HEADERS, GatewayClient
from conformance.suite.gateway.helpers import (
    RINKEBY,
    RINKEBY_CHAIN_ID,
    SEPOLIA,
    SEPOLIA_CHAIN_ID,
    SPEC_METHOD,
    SPEC_PARAMS,
    check_response,
    is_success,
    need,
    need_behaviour,
)

# bodies that are not one request object: a batch, a batch with one entry, a JSON string
NOT_SINGLE_BODIES = [
    json.dumps([{"jsonrpc": "2.0", "method": "eth_chainId", "params": [], "id": 1},
                {"jsonrpc": "2.0", "method": "eth_blockNumber", "params": [], "id": 2}]),
    json.dumps([{"jsonrpc": "2.0", "method": "eth_chainId", "params": [], "id": 1}]),
    json.dumps("eth_chainId"),
]  # fmt: skip
NOT_SINGLE_IDS = ["batch", "batch-of-one", "json-string"]


@pytest.mark.rule("gateway.network.sepolia-served")
def test_sepolia_answers_json_rpc(gateway: GatewayClient) -> None:
    """POST /v1/sepolia answers a JSON-RPC request with a result."""
    need(gateway, SEPOLIA)
    reply = gateway.call(SEPOLIA, "eth_blockNumber", [])
    check_response(reply.json)
    reply.result()


@pytest.mark.rule("gateway.network.sepolia-chain-id")
def test_sepolia_reports_its_chain_id(gateway: GatewayClient) -> None:
    """eth_chainId on /v1/sepolia is 11155111 (0xaa36a7)."""
    need(gateway, SEPOLIA)
    reply = gateway.call(SEPOLIA, "eth_chainId", [])
    assert reply.result() == hex(SEPOLIA_CHAIN_ID), reply.describe()


@pytest.mark.rule("gateway.network.rinkeby-served")
def test_rinkeby_answers_json_rpc(gateway: GatewayClient) -> None:
    """POST /v1/rinkeby answers a JSON-RPC request with a result while rinkeby is supported."""
    need(gateway, RINKEBY)
    reply = gateway.call(RINKEBY, "eth_blockNumber", [])
    check_response(reply.json)
    reply.result()


@pytest.mark.rule("gateway.network.rinkeby-served")
def test_rinkeby_reports_its_chain_id(gateway: GatewayClient) -> None:
    """eth_chainId on /v1/rinkeby is 4 while rinkeby is supported."""
    need(gateway, RINKEBY)
    reply = gateway.call(RINKEBY, "eth_chainId", [])
    assert reply.result() == hex(RINKEBY_CHAIN_ID), reply.describe()


@pytest.mark.rule("gateway.network.rinkeby-retired")
@pytest.mark.parametrize("method", ["eth_chainId", SPEC_METHOD])
def test_rinkeby_gives_no_result_once_retired(gateway: GatewayClient, method: str) -> None:
    """POST /v1/rinkeby gives no successful JSON-RPC result once rinkeby is deprecated."""
    need(gateway, RINKEBY)
    params = SPEC_PARAMS if method == SPEC_METHOD else []
    reply = gateway.call(RINKEBY, method, params)
    assert not is_success(reply), f"rinkeby still served: {reply.describe()}"
    assert reply.status < 500, f"retired network answered as a server failure: {reply.describe()}"


@pytest.mark.rule("gateway.network.rinkeby-retired")
@pytest.mark.parametrize(
    "body", [*NOT_SINGLE_BODIES, "not json"], ids=[*NOT_SINGLE_IDS, "not-json"]
)
def test_retired_rinkeby_refuses_every_body_form(gateway: GatewayClient, body: str) -> None:
    """A batch, any other JSON body or a body that is not JSON, on a retired rinkeby: no result
    either, and not answered as a server failure."""
    need(gateway, RINKEBY)
    reply = gateway.post_raw(RINKEBY, body, JSON_HEADERS)
    assert reply.status < 500, f"retired network answered as a server failure: {reply.describe()}"
    items = reply.json if isinstance(reply.json, list) else [reply.json]
    assert not any(isinstance(i, dict) and "result" in i for i in items), reply.describe()


@pytest.mark.rule("gateway.network.rinkeby-retired-error")
def test_retired_rinkeby_error_points_to_sepolia(gateway: GatewayClient) -> None:
    """A retired rinkeby answers HTTP 4xx with an error naming rinkeby and pointing to sepolia."""
    need(gateway, RINKEBY)
    reply = gateway.call(RINKEBY, "eth_chainId", [], id=21)
    assert 400 <= reply.status < 500, reply.describe()
    check_response(reply.json)
    message = str(reply.error().get("message", "")).lower()
    assert RINKEBY in message and SEPOLIA in message, reply.describe()
    # a valid request object: its response carries its id (JSON-RPC 2.0 section 5)
    assert reply.json["id"] == 21, reply.describe()


@pytest.mark.rule("gateway.network.sepolia-replaces-rinkeby")
def test_sepolia_serves_what_rinkeby_no_longer_does(gateway: GatewayClient) -> None:
    """Once rinkeby is retired, the same request on sepolia is served with sepolia's chain."""
    # without rinkeby there is nothing to replace: sepolia alone is sepolia-served's rule
    need(gateway, SEPOLIA)
    need(gateway, RINKEBY)
    body = json.dumps({"jsonrpc": "2.0", "method": "eth_chainId", "params": [], "id": 3})
    retired = gateway.post_raw(RINKEBY, body, JSON_HEADERS)
    assert not is_success(retired), f"rinkeby still served: {retired.describe()}"
    reply = gateway.post_raw(SEPOLIA, body, JSON_HEADERS)
    assert reply.result() == hex(SEPOLIA_CHAIN_ID), reply.describe()


@pytest.mark.rule("gateway.network.migration-last-segment")
def test_same_request_is_served_on_sepolia(gateway: GatewayClient) -> None:
    """The rinkeby request with only the last path segment changed to sepolia is served."""
    # a migration needs both networks; without rinkeby this would be sepolia-served again
    need(gateway, SEPOLIA)
    need(gateway, RINKEBY)
    body = json.dumps({"jsonrpc": "2.0", "method": SPEC_METHOD, "params": SPEC_PARAMS, "id": 1})
    gateway.post_raw(RINKEBY, body, JSON_HEADERS)
    reply = gateway.post_raw(SEPOLIA, body, JSON_HEADERS)
    check_response(reply.json)
    assert is_success(reply), f"sepolia did not serve the migrated request: {reply.describe()}"


@pytest.mark.rule("gateway.network.unknown-404")
@pytest.mark.parametrize("req_id", [7, "net-7"], ids=["int-id", "string-id"])
def test_unknown_network_is_404_with_error_object(gateway: GatewayClient, req_id: object) -> None:
    """A network the gateway does not know answers HTTP 404 with a JSON-RPC error object."""
    need_behaviour(gateway, "network-routing")
    reply = gateway.call("no-such-network-ec", "eth_chainId", [], id=req_id)
    assert reply.status == 404, f"expected 404, got {reply.describe()}"
    check_response(reply.json)
    assert isinstance(reply.error().get("code"), int)
    # the request object is valid, so the error response carries its id (JSON-RPC 2.0 s. 5)
    assert reply.json["id"] == req_id and type(reply.json["id"]) is type(req_id), reply.describe()


@pytest.mark.rule("gateway.network.unknown-404")
@pytest.mark.parametrize("body", NOT_SINGLE_BODIES, ids=NOT_SINGLE_IDS)
def test_unknown_network_is_404_for_every_body_form(gateway: GatewayClient, body: str) -> None:
    """A batch (or any other JSON body) sent to an unknown network is 404 too, with JSON-RPC
    error objects: the network is refused whatever the body holds."""
    need_behaviour(gateway, "network-routing")
    reply = gateway.post_raw("no-such-network-ec", body, JSON_HEADERS)
    assert reply.status == 404, f"expected 404, got {reply.describe()}"
    for item in reply.json if isinstance(reply.json, list) else [reply.json]:
        check_response(item)
        assert "error" in item, reply.describe()


@pytest.mark.rule("gateway.network.unknown-404")
@pytest.mark.parametrize("network", ["sepolia-ec", "sepoliaec"])
def test_network_named_after_a_served_one_is_unknown(gateway: GatewayClient, network: str) -> None:
    """The last path segment names the network whole: a segment that only begins with a served
    network's name (`sepolia-ec`) names another network, unknown, and answers 404 like any
    other, never sepolia's chain (hand mutant hm7b HM476: networks matched by prefix)."""
    need_behaviour(gateway, "network-routing")
    need(gateway, SEPOLIA)
    reply = gateway.call(network, "eth_chainId", [], id=8)
    assert reply.status == 404, f"/v1/{network}: expected 404, got {reply.describe()}"
    check_response(reply.json)
    assert "error" in reply.json, reply.describe()
