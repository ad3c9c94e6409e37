"""JSON-RPC 2.0 batches and notifications on a served network."""

from __future__ import annotations

import json

import pytest

from conformance.clients.gateway import JSON_HEADERS, GatewayClient, request_object
from conformance.suite.gateway.helpers import check_response, served_network


@pytest.mark.rule("gateway.jsonrpc.batch")
def test_batch_answers_each_request(gateway: GatewayClient) -> None:
    """A batch answers an array with one response per request, matched by id."""
    batch = [request_object("eth_chainId", [], 1), request_object("eth_blockNumber", [], "two")]
    reply = gateway.post_json(served_network(gateway), batch)
    assert reply.status == 200 and isinstance(reply.json, list), reply.describe()
    for item in reply.json:
        check_response(item)
    assert sorted(map(str, (item["id"] for item in reply.json))) == ["1", "two"]
    assert all("result" in item for item in reply.json)


@pytest.mark.rule("gateway.jsonrpc.batch")
def test_batch_of_one_answers_an_array(gateway: GatewayClient) -> None:
    """A batch holding one request is still a batch: it answers an array holding one response
    (JSON-RPC 2.0 section 6: the response to a batch is an Array), not the bare response
    object of a single request (hand mutant hm7b HM470)."""
    reply = gateway.post_json(served_network(gateway), [request_object("eth_chainId", [], 21)])
    assert reply.status == 200 and isinstance(reply.json, list), reply.describe()
    assert len(reply.json) == 1, reply.describe()
    check_response(reply.json[0])
    assert reply.json[0]["id"] == 21 and "result" in reply.json[0], reply.describe()


@pytest.mark.rule("gateway.jsonrpc.batch")
def test_mixed_batch(gateway: GatewayClient) -> None:
    """Valid and invalid entries of one batch each get their own response."""
    batch = [request_object("eth_chainId", [], 1), 1, request_object("eth_noSuchEc", [], 3)]
    reply = gateway.post_json(served_network(gateway), batch)
    assert reply.status == 200 and isinstance(reply.json, list), reply.describe()
    assert len(reply.json) == 3, reply.describe()
    by_id = {json.dumps(item.get("id")): item for item in reply.json}
    assert set(by_id) == {"1", "3", "null"}, f"ids answered: {sorted(by_id)}; {reply.describe()}"
    # each entry its own response: a result for the valid one, an error for each of the others
    # (which error code is the method-not-found and invalid-request rules' business)
    assert "result" in by_id["1"], reply.describe()
    assert "error" in by_id["3"], reply.describe()
    assert "error" in by_id["null"], reply.describe()


@pytest.mark.rule("gateway.jsonrpc.empty-batch")
def test_empty_batch_is_one_invalid_request(gateway: GatewayClient) -> None:
    """An empty batch answers a single -32600 response object, not an array."""
    reply = gateway.post_raw(served_network(gateway), "[]", JSON_HEADERS)
    assert isinstance(reply.json, dict), f"expected one response object, got {reply.describe()}"
    check_response(reply.json)
    assert reply.json["error"]["code"] == -32600
    assert reply.json["id"] is None


@pytest.mark.rule("gateway.jsonrpc.notification")
def test_notification_gets_no_response(gateway: GatewayClient) -> None:
    """A request without an id (a notification) gets no response body."""
    reply = gateway.notify(served_network(gateway), "eth_chainId", [])
    assert reply.status in (200, 202, 204), reply.describe()
    assert not reply.body.strip(), f"notification answered: {reply.describe()}"


@pytest.mark.rule("gateway.jsonrpc.notification")
def test_all_notification_batch_gets_no_response(gateway: GatewayClient) -> None:
    """A batch of notifications only gets no response body."""
    batch = [request_object("eth_chainId", []), request_object("eth_blockNumber", [])]
    reply = gateway.post_json(served_network(gateway), batch)
    assert reply.status in (200, 202, 204), reply.describe()
    assert not reply.body.strip(), f"notifications answered: {reply.describe()}"


@pytest.mark.rule("gateway.jsonrpc.notification")
def test_notifications_in_a_batch_are_not_answered(gateway: GatewayClient) -> None:
    """In a batch, only the requests with an id are answered."""
    batch = [request_object("eth_chainId", []), request_object("eth_chainId", [], 11)]
    reply = gateway.post_json(served_network(gateway), batch)
    assert isinstance(reply.json, list), reply.describe()
    assert [item.get("id") for item in reply.json] == [11], reply.describe()


@pytest.mark.rule("gateway.jsonrpc.notification")
def test_failed_notification_gets_no_response(gateway: GatewayClient) -> None:
    """A notification the server cannot serve (an unknown method) is not answered either:
    JSON-RPC 2.0 (section 4.1) says errors of notifications are not reported, alone or in a
    batch, where only the request with an id gets a response."""
    network = served_network(gateway)
    alone = gateway.post_json(network, request_object("eth_noSuchMethodEc", []))
    assert alone.status in (200, 202, 204), alone.describe()
    assert not alone.body.strip(), f"a failed notification was answered: {alone.describe()}"
    batch = [request_object("eth_noSuchMethodEc", []), request_object("eth_chainId", [], 12)]
    reply = gateway.post_json(network, batch)
    assert isinstance(reply.json, list), reply.describe()
    assert [item.get("id") for item in reply.json] == [12], reply.describe()
