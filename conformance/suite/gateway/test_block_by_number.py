"""eth_getBlockByNumber as the spec shows it: a hex block number (or tag), then a boolean."""

from __future__ import annotations

import pytest

from conformance.clients.gateway import GatewayClient
from conformance.suite.gateway.helpers import check_result, result_of
from conformance.suite.setup_check import require

LOOKBACK_BLOCKS = 16


@pytest.mark.rule("gateway.jsonrpc.get-block-by-number")
@pytest.mark.parametrize("ref", ["0x0", "latest", "earliest"])
@pytest.mark.parametrize("full", [False, True], ids=["hashes", "full"])
def test_block_matches_schema(gateway: GatewayClient, ref: str, full: bool) -> None:
    """The block returned has the execution API's block shape."""
    block = result_of(gateway, "eth_getBlockByNumber", [ref, full])
    assert block is not None, f"no block for {ref}"
    check_result("eth_getBlockByNumber", block)


@pytest.mark.rule("gateway.jsonrpc.get-block-by-number")
def test_block_quantities_are_minimal_and_bloom_is_256_bytes(gateway: GatewayClient) -> None:
    """Quantities have no leading zeros and logsBloom is 256 bytes."""
    block = result_of(gateway, "eth_getBlockByNumber", ["latest", False])
    for key in ("number", "gasLimit", "gasUsed", "timestamp", "size"):
        digits = block[key][2:]
        assert digits == "0" or not digits.startswith("0"), f"{key}={block[key]} not minimal"
    assert len(block["logsBloom"]) == 2 + 512, block["logsBloom"][:20]


@pytest.mark.rule("gateway.jsonrpc.get-block-by-number")
def test_block_by_hash_is_the_same_block(gateway: GatewayClient) -> None:
    """The block's hash finds the same block through eth_getBlockByHash."""
    by_number = result_of(gateway, "eth_getBlockByNumber", ["0x0", False])
    by_hash = result_of(gateway, "eth_getBlockByHash", [by_number["hash"], False])
    check_result("eth_getBlockByHash", by_hash)
    assert by_hash["hash"] == by_number["hash"] and by_hash["number"] == "0x0"


@pytest.mark.rule("gateway.jsonrpc.params-array")
@pytest.mark.parametrize("full", [False, True], ids=["false", "true"])
def test_params_are_number_then_boolean(gateway: GatewayClient, full: bool) -> None:
    """["0x0", bool]: the block number selects the block, the boolean the transaction form."""
    latest = result_of(gateway, "eth_getBlockByNumber", ["latest", False])
    head = int(latest["number"], 16)
    # the newest block with a transaction, so the boolean has something to select
    for number in range(head, max(head - LOOKBACK_BLOCKS, -1), -1):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(number), full])
        assert block["number"] == hex(number), (number, block["number"])
        if block["transactions"]:
            break
    # a chain without recent transactions leaves the boolean nothing to select: not checked
    require(block["transactions"], f"no transaction in the last {LOOKBACK_BLOCKS} blocks")
    for tx in block["transactions"]:
        assert isinstance(tx, dict) if full else isinstance(tx, str), tx


@pytest.mark.rule("gateway.jsonrpc.get-block-by-number")
def test_missing_block_is_null(gateway: GatewayClient) -> None:
    """A block number beyond the head is a null result, not an error."""
    assert result_of(gateway, "eth_getBlockByNumber", ["0x7fffffff", False]) is None
