"""JSON-RPC ids and batches checked value by value, with the ids an implementer may mishandle.

Falsy ids (0, "", null) are requests and are echoed as sent: an implementer testing `if id`
or `id is None` would drop them or take a `null` id for a notification. In a batch each
response carries its own request's id and the same result the request gets alone.
"""

from __future__ import annotations

import json

import pytest

from conformance.clients.gateway import GatewayClient, request_object
from conformance.suite.gateway.helpers import check_response, served_network


@pytest.mark.rule("gateway.jsonrpc.id-echoed")
# 1.5: JSON-RPC 2.0 (section 4) asks clients not to send fractional ids (SHOULD NOT), yet a
# Number it is, and the response's id is the same value: refusing or truncating it breaks the rule
@pytest.mark.parametrize("req_id", [0, "", "0", -7, 2**53, 1.5, "id with spaces"], ids=repr)
def test_id_echoed_exactly(gateway: GatewayClient, req_id) -> None:
    """The response's id equals the request's, type and value (no falsy id dropped)."""
    reply = gateway.call(served_network(gateway), "eth_chainId", [], id=req_id)
    check_response(reply.json)
    assert reply.json["id"] == req_id and type(reply.json["id"]) is type(req_id), reply.describe()
    assert "result" in reply.json


@pytest.mark.rule("gateway.jsonrpc.id-echoed", "gateway.jsonrpc.notification")
def test_explicit_null_id_is_a_request_not_a_notification(gateway: GatewayClient) -> None:
    """`"id": null` is present, so the request is answered, with id null."""
    doc: dict[str, object] = {"jsonrpc": "2.0", "method": "eth_chainId", "params": [], "id": None}
    reply = gateway.post_json(served_network(gateway), doc)
    assert reply.body.strip(), f"an id:null request was not answered: {reply.describe()}"
    check_response(reply.json)
    assert reply.json["id"] is None and "result" in reply.json, reply.describe()


@pytest.mark.rule("gateway.jsonrpc.batch", "gateway.jsonrpc.id-echoed")
def test_batch_responses_match_single_answers(gateway: GatewayClient) -> None:
    """Each batch response has its request's id and the result the request gets alone (an
    error for the unknown method); ids 0 and "" are answered too."""
    network = served_network(gateway)
    alone = gateway.call(network, "eth_chainId", [], id=5).json["result"]
    batch = [
        request_object("eth_chainId", [], 0),
        request_object("eth_noSuchMethodEc", [], ""),
        request_object("eth_chainId", [], "last"),
    ]
    reply = gateway.post_json(network, batch)
    assert reply.status == 200 and isinstance(reply.json, list), reply.describe()
    assert len(reply.json) == 3, reply.describe()
    by_id = {json.dumps(item.get("id")): item for item in reply.json}
    assert set(by_id) == {"0", '""', '"last"'}, reply.describe()
    for item in reply.json:
        check_response(item)
    assert by_id["0"]["result"] == alone and by_id['"last"']["result"] == alone
    # the unknown method is answered with an error object in its place; which code it carries
    # is gateway.jsonrpc.method-not-found's rule, judged on its own
    assert "error" in by_id['""'] and "result" not in by_id['""'], by_id['""']


@pytest.mark.rule("gateway.jsonrpc.invalid-request")
@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], True], ids=["object", "array", "bool"])
def test_id_of_wrong_type_is_invalid_request(gateway: GatewayClient, bad_id) -> None:
    """An id that is not a string, number or null: -32600, answered with id null."""
    doc = {"jsonrpc": "2.0", "method": "eth_chainId", "params": [], "id": bad_id}
    reply = gateway.post_json(served_network(gateway), doc)
    check_response(reply.json)
    assert reply.json["error"]["code"] == -32600, reply.describe()
    assert reply.json["id"] is None, reply.describe()


@pytest.mark.rule("gateway.jsonrpc.invalid-request", "gateway.jsonrpc.version")
@pytest.mark.parametrize("version", ["1.0", 2.0, None], ids=["1.0", "number", "missing"])
def test_wrong_jsonrpc_version_is_invalid_request_with_id(gateway: GatewayClient, version):
    """A request whose jsonrpc is not the string "2.0": -32600, with its id or null.

    JSON-RPC 2.0 (section 5) makes the id null when it could not be determined from an invalid
    request, and a server may judge the whole object invalid before reading its id: both the
    request's id and null are right; any other id is not."""
    doc = {"method": "eth_chainId", "params": [], "id": 42}
    if version is not None:
        doc["jsonrpc"] = version
    reply = gateway.post_json(served_network(gateway), doc)
    check_response(reply.json)
    assert reply.json["error"]["code"] == -32600, reply.describe()
    assert reply.json["id"] in (42, None), reply.describe()
