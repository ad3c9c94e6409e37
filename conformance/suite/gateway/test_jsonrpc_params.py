"""Invalid params (-32602) on both sides: every param kind refused with a wrong JSON type, and
accepted (no -32602, no server error) with a right one, at the arity limits n and n+1.

An implementer who refuses too much (a valid address, an omitted optional block) or too little
(a number where a hex string belongs, which then crashes inside the node client) breaks
gateway.jsonrpc.invalid-params as surely as one who never answers -32602.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.gateway import GatewayClient
from conformance.suite.gateway.helpers import check_response, result_of, served_network

ADDR = "0x" + "11" * 20
MIXED_ADDR = "0x" + "aB" * 20  # mixed-case hex without a checksum is still an address
HASH0 = "0x" + "00" * 32


def _answer(gateway: GatewayClient, method: str, params: list[Any]) -> dict[str, Any]:
    reply = gateway.call(served_network(gateway), method, params, id=31)
    assert reply.status < 500, f"{method}{params!r} answered a server failure: {reply.describe()}"
    check_response(reply.json)
    assert reply.json.get("id") == 31, reply.describe()
    return dict(reply.json)


def _latest_hash(gateway: GatewayClient) -> str:
    block = result_of(gateway, "eth_getBlockByNumber", ["latest", False])
    assert isinstance(block, dict) and isinstance(block.get("hash"), str), block
    return str(block["hash"])


VALID: list[tuple[str, list[Any]]] = [
    ("eth_blockNumber", []),
    ("eth_getBalance", [ADDR]),  # the optional block omitted: required count n
    ("eth_getBalance", [ADDR, "latest"]),  # every param: n == len(types)
    ("eth_getBalance", [MIXED_ADDR, "0x0"]),
    ("eth_getTransactionCount", [ADDR, "earliest"]),
    ("eth_getCode", [ADDR, "latest"]),
    ("eth_getBlockByNumber", ["earliest", False]),
    ("eth_getBlockByNumber", ["0x0", True]),
    ("eth_getTransactionByHash", [HASH0]),
    ("eth_getTransactionReceipt", [HASH0]),
    ("eth_call", [{"to": ADDR, "data": "0x"}, "latest"]),
    ("eth_call", [{"to": ADDR}]),
    ("eth_getLogs", [{"address": ADDR, "toBlock": "latest"}]),  # fromBlock omitted
    ("eth_getLogs", [{"fromBlock": "latest", "address": [ADDR], "topics": [None, [HASH0]]}]),
    ("eth_getLogs", [{"fromBlock": "latest", "topics": [HASH0, None, None, [HASH0]]}]),  # 4
    ("eth_feeHistory", ["0x1", "latest", [0, 100]]),  # percentiles at both ends of 0..100
    ("eth_feeHistory", ["0x1", "latest", [0, 12.5, 100]]),
    ("eth_call", [{"to": ADDR, "gasPrice": "0x3b9aca00"}]),  # a legacy fee alone
    ("eth_call", [{"to": ADDR, "maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "0x1"}]),
    # the execution API's GenericTransaction names the call's data `input` (hand mutant hm6b HM294)
    ("eth_call", [{"to": ADDR, "input": "0x"}]),
    # every tag of the execution API's BlockTag (earliest, finalized, safe, latest, pending), not
    # only latest and earliest: a node answers safe and finalized with a block or, before the
    # merge, -39001 Unknown block, never -32602 (hand mutants hm7b HM468, HM469)
    ("eth_getBalance", [ADDR, "safe"]),
    ("eth_getBalance", [ADDR, "finalized"]),
    ("eth_getBalance", [ADDR, "pending"]),
    ("eth_getBlockByNumber", ["finalized", False]),
]


@pytest.mark.rule("gateway.jsonrpc.invalid-params")
@pytest.mark.parametrize(
    ("method", "params"), VALID, ids=[f"{m}-{i}" for i, (m, _) in enumerate(VALID)]
)
def test_valid_params_are_not_invalid(
    gateway: GatewayClient, method: str, params: list[Any]
) -> None:
    """Params of the right type and count are never answered -32602 nor with a 5xx."""
    doc = _answer(gateway, method, params)
    code = (doc.get("error") or {}).get("code")
    assert code != -32602, f"{method}{params!r}: valid params refused: {doc}"


@pytest.mark.rule("gateway.jsonrpc.invalid-params")
def test_block_hash_filter_is_valid(gateway: GatewayClient) -> None:
    """A log filter by blockHash alone (no from/to block) is valid params."""
    doc = _answer(gateway, "eth_getLogs", [{"blockHash": _latest_hash(gateway)}])
    assert (doc.get("error") or {}).get("code") != -32602, doc
    assert "result" in doc and isinstance(doc["result"], list), doc


INVALID: list[tuple[str, list[Any]]] = [
    ("eth_blockNumber", ["extra"]),  # n + 1 params
    ("eth_getBalance", [ADDR, "latest", "extra"]),  # n + 1 params
    ("eth_getBalance", []),  # one fewer than required
    ("eth_getBlockByNumber", ["latest"]),  # one fewer than required
    ("eth_getBalance", [42, "latest"]),
    ("eth_getBalance", [[ADDR], "latest"]),
    ("eth_getBalance", ["0x" + "gg" * 20, "latest"]),
    ("eth_getBalance", [ADDR + "11", "latest"]),  # 21 bytes
    ("eth_getBalance", [ADDR, 5]),  # a block as a JSON number
    ("eth_getBlockByHash", [HASH0, 1]),  # a flag as a number
    ("eth_getBlockByHash", [int("1" * 20), False]),
    ("eth_getTransactionByHash", [HASH0 + "00"]),  # 33 bytes
    ("eth_call", [{"to": ADDR, "value": 5}]),  # a quantity as a JSON number
    ("eth_call", [{"to": ADDR, "data": "0x1"}]),  # odd-length data
    ("eth_call", [{"to": 42}]),
    ("eth_call", ["not-an-object"]),
    ("eth_getLogs", ["not-an-object"]),
    ("eth_getLogs", [{"toBlock": 7}]),
    ("eth_getLogs", [{"address": 42}]),
    ("eth_getLogs", [{"address": [42]}]),
    ("eth_getLogs", [{"address": [ADDR, 42]}]),  # every item of the list, not only the first
    ("eth_getLogs", [{"address": [ADDR, "0x1234"]}]),
    ("eth_getLogs", [{"topics": [42]}]),
    ("eth_getLogs", [{"topics": [[42]]}]),
    ("eth_getLogs", [{"fromBlock": "latest", "topics": [HASH0, None, None, None, None]}]),  # 5
    # EIP-234: a filter names a blockHash or a block range, never both
    ("eth_getLogs", [{"blockHash": HASH0, "fromBlock": "latest"}]),
    ("eth_getLogs", [{"blockHash": HASH0, "toBlock": "latest"}]),
    ("eth_feeHistory", ["0x1", "latest", 50]),  # rewardPercentiles not a list
    ("eth_feeHistory", ["0x1", "latest", ["50"]]),  # a percentile as a string
    ("eth_feeHistory", ["0x1", "latest", [True]]),
    # a quantity is the execution API's uint, ^0x(0|[1-9a-f][0-9a-f]*)$: it has no leading zero
    # digit and is never empty (geth refuses both). Not asserted at MUST: an upper-case `0X`
    # prefix (geth's hex parser takes it) and block tags in other cases (`LATEST`; clients
    # differ), where a correct node-backed gateway may serve the call.
    ("eth_getBlockByNumber", ["0x00", False]),
    ("eth_getBalance", [ADDR, "0x01"]),
    ("eth_feeHistory", ["0x01", "latest", []]),
    ("eth_getBlockByNumber", ["0x", False]),
    # every item of a topic's OR list, not only the first (hand mutant hm6b HM293)
    ("eth_getLogs", [{"topics": [[HASH0, 42]]}]),
    # a block number is hex (the execution API's uint; geth: "hex string without 0x prefix"),
    # a decimal string is no block (hand mutant hm7b HM480: `"10"` read as block 10)
    ("eth_getBlockByNumber", ["10", False]),
]


@pytest.mark.rule("gateway.jsonrpc.invalid-params")
@pytest.mark.parametrize(
    ("method", "params"), INVALID, ids=[f"{m}-{i}" for i, (m, _) in enumerate(INVALID)]
)
def test_wrong_params_are_invalid(gateway: GatewayClient, method: str, params: list[Any]) -> None:
    """A param of the wrong JSON type or form, or a wrong count, answers -32602 with the id."""
    doc = _answer(gateway, method, params)
    assert "error" in doc, f"{method}{params!r} was served: {doc}"
    assert doc["error"].get("code") == -32602, f"{method}{params!r}: {doc}"
