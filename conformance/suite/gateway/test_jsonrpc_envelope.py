"""JSON-RPC 2.0 on a served network: version, id echo, one of result/error, error codes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.clients.gateway import JSON_HEADERS, GatewayClient, request_object
from conformance.suite.gateway.helpers import (
    check_response,
    check_result,
    need_behaviour,
    served_network,
)


@pytest.mark.rule("gateway.jsonrpc.id-echoed")
@pytest.mark.parametrize(
    "req_id",
    [7, 0, -3, 2**40, "abc", "", None],
    ids=["int", "zero", "negative", "big", "string", "empty-string", "null"],
)
def test_id_is_echoed(gateway: GatewayClient, req_id: Any) -> None:
    """The response carries the request's id unchanged, with its JSON type."""
    reply = gateway.call(served_network(gateway), "eth_chainId", [], id=req_id)
    check_response(reply.json)
    # a refusal (-32600) also carries id null: only a served request shows the echo
    assert "result" in reply.json, f"request with id {req_id!r} not served: {reply.describe()}"
    assert "id" in reply.json and reply.json["id"] == req_id, reply.describe()
    assert type(reply.json["id"]) is type(req_id), reply.describe()


@pytest.mark.rule("gateway.jsonrpc.exponent-number-parsed")
def test_id_in_exponent_form_is_parsed(gateway: GatewayClient) -> None:
    """An id written `7e0` is a JSON number (RFC 8259 section 6: the exponent is one of its
    forms), the number 7: the body is JSON, so it is never a parse error (-32700) nor a 5xx. A
    gateway serves it with id 7, or, reading ids as integers only (the spec's table types id as
    an integer), refuses it as an invalid request (-32600). A reader that takes only `.` as the
    mark of a non-integer number answers -32700."""
    body = '{"jsonrpc": "2.0", "method": "eth_chainId", "params": [], "id": 7e0}'
    reply = gateway.post_raw(served_network(gateway), body, JSON_HEADERS)
    assert reply.status < 500, f"a JSON body answered as a server failure: {reply.describe()}"
    check_response(reply.json)
    if "error" in reply.json:
        assert reply.error()["code"] == -32600, f"valid JSON refused otherwise: {reply.describe()}"
        return
    assert reply.json.get("id") == 7, reply.describe()


@pytest.mark.rule("gateway.jsonrpc.id-echoed")
def test_id_is_echoed_on_errors(gateway: GatewayClient) -> None:
    """An error response carries the request's id too."""
    reply = gateway.call(served_network(gateway), "no_suchMethod", [], id="err-7")
    check_response(reply.json)
    assert reply.json["id"] == "err-7", reply.describe()


@pytest.mark.rule("gateway.jsonrpc.version")
@pytest.mark.parametrize("method", ["eth_chainId", "no_suchMethod"], ids=["result", "error"])
def test_response_says_jsonrpc_2_0(gateway: GatewayClient, method: str) -> None:
    """Every response object has jsonrpc "2.0"."""
    reply = gateway.call(served_network(gateway), method, [])
    assert isinstance(reply.json, dict), reply.describe()
    assert reply.json.get("jsonrpc") == "2.0", reply.describe()


@pytest.mark.rule("gateway.jsonrpc.result-xor-error")
@pytest.mark.parametrize("method", ["eth_chainId", "no_suchMethod"], ids=["result", "error"])
def test_exactly_one_of_result_and_error(gateway: GatewayClient, method: str) -> None:
    """A response has exactly one of result and error, and an error has integer code + message."""
    reply = gateway.call(served_network(gateway), method, [])
    assert isinstance(reply.json, dict), reply.describe()
    assert ("result" in reply.json) != ("error" in reply.json), reply.describe()
    check_response(reply.json)


def _error_code(gateway: GatewayClient, body: bytes | str) -> tuple[int, Any]:
    reply = gateway.post_raw(served_network(gateway), body, JSON_HEADERS)
    assert reply.status < 500, f"bad input answered as a server failure: {reply.describe()}"
    # a 1xx is an interim response, never the answer itself (RFC 9110 section 15.2)
    assert reply.status >= 200, f"no final HTTP status: {reply.describe()}"
    check_response(reply.json)
    err = reply.error()
    return err["code"], reply.json["id"]


@pytest.mark.rule("gateway.jsonrpc.parse-error")
@pytest.mark.parametrize(
    "body",
    [
        '{"jsonrpc": "2.0", "method": "eth_chainId", "id": 1',
        "not json",
        b"\xff\xfe",
        '{"jsonrpc": "2.0", "method": "eth_chainId", "params": [NaN], "id": 1}',
        '{"jsonrpc": "2.0", "method": "eth_chainId", "params": [-Infinity], "id": 1}',
    ],
    ids=["truncated", "text", "binary", "nan", "infinity"],
)
def test_parse_error(gateway: GatewayClient, body: bytes | str) -> None:
    """A body that is not JSON answers -32700 with id null. `NaN` and `Infinity` are not JSON
    (RFC 8259 section 6: they "are not permitted"), though a lenient decoder (Python's json,
    JSON5) takes them and would serve the call."""
    assert _error_code(gateway, body) == (-32700, None)


@pytest.mark.rule("gateway.jsonrpc.invalid-request")
@pytest.mark.parametrize(
    "body",
    [
        '{"jsonrpc": "1.0", "method": "eth_chainId", "id": 1}',
        '{"method": "eth_chainId", "id": 1}',
        '{"jsonrpc": "2.0", "method": 42, "id": 1}',
        '{"jsonrpc": "2.0", "id": 1}',
        '"just a string"',
        "42",
        # JSON-RPC 2.0 section 7, "rpc call with invalid Request object": no id, and answered
        '{"jsonrpc": "2.0", "method": 1, "params": "bar"}',
    ],
    ids=[
        "version-1.0",
        "no-version",
        "method-number",
        "no-method",
        "string",
        "number",
        "spec-example-no-id",
    ],
)
def test_invalid_request(gateway: GatewayClient, body: str) -> None:
    """A JSON body that is not a valid request object answers -32600. A params member that is
    not structured is its own SHOULD rule (below: geth answers it -32602), and `"params": null`
    is not asserted: JSON-RPC 2.0 makes it invalid, yet geth serves it as params omitted, and
    the gateway's own answer is not public (docs/decisions.md "params null"). An invalid object
    without an id is answered too: it is no notification (JSON-RPC 2.0 section 7's example of
    an invalid Request object has no id and gets -32600 with id null; hand mutant hm7b HM471)."""
    code, _ = _error_code(gateway, body)
    assert code == -32600, f"error code {code}, expected -32600 for {body}"


@pytest.mark.rule("gateway.jsonrpc.params-scalar-invalid-request")
@pytest.mark.parametrize("params", ['"x"', "42", "true", '"latest"'])
def test_params_neither_array_nor_object_is_invalid_request(
    gateway: GatewayClient, params: str
) -> None:
    """JSON-RPC 2.0 section 4: params, when present, is an array or an object; anything else
    makes the request invalid, -32600 (docs/decisions.md "params neither an array nor an
    object": geth answers -32602, hence SHOULD). Never served."""
    body = f'{{"jsonrpc": "2.0", "method": "eth_chainId", "params": {params}, "id": 1}}'
    code, _ = _error_code(gateway, body)
    assert code == -32600, f"error code {code}, expected -32600 for {body}"


@pytest.mark.rule("gateway.jsonrpc.invalid-request")
@pytest.mark.parametrize(
    "body",
    [
        '{"jsonrpc": "2.0", "method": "eth_chainId", "id": 1}',
        '{"jsonrpc": "2.0", "method": "eth_chainId", "params": [], "id": 1}',
    ],
    ids=["params-omitted", "params-empty-array"],
)
def test_valid_request_is_not_invalid(gateway: GatewayClient, body: str) -> None:
    """The other side: a valid request object (params omitted, which JSON-RPC 2.0 section 4
    allows, or an empty array) is served, not answered -32600 nor with a server failure."""
    reply = gateway.post_raw(served_network(gateway), body, JSON_HEADERS)
    assert reply.status < 500, f"a valid request answered as a server failure: {reply.describe()}"
    check_response(reply.json)
    assert "result" in reply.json and reply.json["id"] == 1, reply.describe()


@pytest.mark.rule("gateway.jsonrpc.params-object-not-invalid-request")
@pytest.mark.parametrize(
    "body",
    [
        '{"jsonrpc": "2.0", "method": "eth_getBlockByNumber", "params": {"block": "latest"}, '
        '"id": 1}',
        '{"jsonrpc": "2.0", "method": "eth_chainId", "params": {}, "id": 1}',
    ],
    ids=["named-params", "empty-object"],
)
def test_params_object_is_not_an_invalid_request(gateway: GatewayClient, body: str) -> None:
    """params as an object (by name) makes a valid request object (JSON-RPC 2.0 section 4.2):
    positional methods answer it -32602 invalid params, or serve it, never -32600 nor a 5xx."""
    reply = gateway.post_raw(served_network(gateway), body, JSON_HEADERS)
    assert reply.status < 500, f"answered as a server failure: {reply.describe()}"
    assert reply.status >= 200, f"no final HTTP status: {reply.describe()}"
    check_response(reply.json)
    assert reply.json.get("id") == 1, reply.describe()
    code = (reply.json.get("error") or {}).get("code")
    assert code in (None, -32602), f"params by name answered {code}: {reply.describe()}"
    if code is None:  # served: the method's own result
        check_result(json.loads(body)["method"], reply.json.get("result"))


@pytest.mark.rule("gateway.jsonrpc.method-not-found")
@pytest.mark.parametrize("method", ["eth_noSuchMethodEc", "rpc.discover", "ETH_CHAINID"])
def test_method_not_found(gateway: GatewayClient, method: str) -> None:
    """An unknown method answers -32601 and echoes the id. A served method's name in another
    case is unknown too: a JSON-RPC method is the exact string (Ethereum's clients match names
    case-sensitively), so a gateway that folds case serves calls no client was promised."""
    doc = request_object(method, [], 5)
    assert _error_code(gateway, _dumps(doc)) == (-32601, 5)


@pytest.mark.rule("gateway.jsonrpc.unsupported-method-403")
@pytest.mark.parametrize("method", ["eth_noSuchMethodEc", "debug_traceTransaction"])
def test_unsupported_method_is_403(gateway: GatewayClient, method: str) -> None:
    """A single request for a method the gateway does not support answers HTTP 403."""
    need_behaviour(gateway, "method-allow-list")
    reply = gateway.call(served_network(gateway), method, ["0x" + "00" * 32], id=6)
    assert reply.status == 403, f"expected HTTP 403, got {reply.describe()}"


@pytest.mark.rule("gateway.jsonrpc.invalid-params")
@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("eth_getBlockByNumber", ["not-a-block", False]),
        ("eth_getBlockByNumber", ["0x0", "yes"]),
        ("eth_getBalance", ["0x1234", "latest"]),
        ("eth_getBlockByHash", ["0x12", False]),
        ("eth_getTransactionReceipt", [42]),
    ],
    ids=["bad-block", "bad-flag", "bad-address", "short-hash", "number-hash"],
)
def test_invalid_params(gateway: GatewayClient, method: str, params: list[Any]) -> None:
    """Params of the wrong type answer -32602, never a server error."""
    code, req_id = _error_code(gateway, _dumps(request_object(method, params, 9)))
    assert (code, req_id) == (-32602, 9)


def _dumps(doc: Any) -> str:
    import json

    return json.dumps(doc)


ACCOUNT = "0x" + "11" * 20  # an account without code: any node executes a call to it
NO_HASH = "0x" + "00" * 32  # no block or transaction has it: the answer is a null result
SUPPORTED = [
    ("web3_clientVersion", []),
    ("web3_sha3", ["0x68656c6c6f"]),
    ("net_version", []),
    ("net_listening", []),
    ("eth_syncing", []),
    ("eth_mining", []),
    ("eth_chainId", []),
    ("eth_blockNumber", []),
    ("eth_gasPrice", []),
    ("eth_feeHistory", ["0x1", "latest", [50]]),
    ("eth_feeHistory", ["0x2", "latest", []]),  # no percentile asked
    ("eth_getBalance", [ACCOUNT, "latest"]),
    ("eth_getTransactionCount", [ACCOUNT, "latest"]),
    ("eth_getCode", [ACCOUNT, "latest"]),
    ("eth_getStorageAt", ["0x" + "00" * 20, "0x0", "latest"]),
    ("eth_call", [{"to": ACCOUNT, "data": "0x"}, "latest"]),
    ("eth_estimateGas", [{"to": ACCOUNT}]),
    ("eth_getBlockByHash", [NO_HASH, False]),
    ("eth_getTransactionByHash", [NO_HASH]),
    ("eth_getTransactionReceipt", [NO_HASH]),
    ("eth_getLogs", [{"fromBlock": "latest"}]),
    ("eth_getLogs", [{"fromBlock": "earliest", "toBlock": "earliest"}]),  # the genesis block's
    ("eth_getBlockTransactionCountByNumber", ["latest"]),
    ("eth_getBlockTransactionCountByNumber", ["0x7fffffff"]),  # beyond the head: null
    ("eth_getBlockTransactionCountByHash", [NO_HASH]),
]


@pytest.mark.rule("gateway.jsonrpc.supported-methods-served")
@pytest.mark.parametrize(("method", "params"), SUPPORTED, ids=[m for m, _ in SUPPORTED])
def test_supported_method_answers_a_result(
    gateway: GatewayClient, method: str, params: list[Any]
) -> None:
    """A method of the provider's supported list is answered with a result, not refused, and
    the result has the execution API's shape for the method."""
    reply = gateway.call(served_network(gateway), method, params, id=11)
    assert reply.status == 200, f"{method}: expected 200, got {reply.describe()}"
    assert isinstance(reply.json, dict) and "result" in reply.json, reply.describe()
    check_response(reply.json)
    if reply.json["result"] is not None:  # null: no such block or transaction
        check_result(method, reply.json["result"])


@pytest.mark.rule("gateway.jsonrpc.supported-methods-served")
@pytest.mark.parametrize("percentiles", [[0, 50, 100], [25.5]], ids=["0-50-100", "one"])
def test_fee_history_has_one_entry_per_block(
    gateway: GatewayClient, percentiles: list[float]
) -> None:
    """eth_feeHistory's shape (execution API): gasUsedRatio one entry per block of the range
    that ends at newestBlock and starts at oldestBlock, baseFeePerGas those blocks' and the next
    one's, and per requested percentile list a reward entry per block with one value each."""
    network = served_network(gateway)
    head = gateway.call(network, "eth_blockNumber", [], id=12).result()
    newest = int(head, 16)
    # rewardPercentiles is a required param (execution-apis, src/eth/fee_market.yaml)
    reply = gateway.call(network, "eth_feeHistory", ["0x2", hex(newest), percentiles], id=13)
    check_response(reply.json)
    result = reply.result()
    check_result("eth_feeHistory", result)
    ratios = result["gasUsedRatio"]
    assert 1 <= len(ratios) <= min(2, newest + 1), result
    assert int(result["oldestBlock"], 16) == newest - len(ratios) + 1, result
    assert len(result["baseFeePerGas"]) == len(ratios) + 1, result
    assert len(result["reward"]) == len(ratios), result
    assert all(len(entry) == len(percentiles) for entry in result["reward"]), result
