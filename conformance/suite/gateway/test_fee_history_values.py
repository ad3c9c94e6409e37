"""Values of eth_feeHistory and of mined transactions that the sources state and blocks show.

execution-apis (src/eth/fee_market.yaml): baseFeePerGas holds the blocks' base fees plus the next
block's, "derived from the newest block"; gasUsedRatio is "the ratio of gasUsed and gasLimit".
The next base fee follows EIP-1559 (elasticity 2, change denominator 8), sepolia's fee market.
The reward values are "effective priority fees per gas at the requested block percentiles" of
the block's transactions: exact values take every receipt of a block (the gas weights), but any
percentile of a block's tips lies between its smallest and its largest, which the block shows
(each transaction's fee fields and the block's base fee: EIP-1559's effective tip).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from conformance.clients.gateway import GatewayClient
from conformance.suite.gateway.helpers import check_result, result_of, settled_block

ELASTICITY = 2  # EIP-1559 ELASTICITY_MULTIPLIER
DENOMINATOR = 8  # EIP-1559 BASE_FEE_MAX_CHANGE_DENOMINATOR


def eip1559_next_base_fee(base: int, gas_used: int, gas_limit: int) -> int:
    """EIP-1559: the base fee of the block after one with this base fee and gas use."""
    target = gas_limit // ELASTICITY
    if gas_used == target:
        return base
    if gas_used > target:
        return base + max(1, base * (gas_used - target) // target // DENOMINATOR)
    return base - base * (target - gas_used) // target // DENOMINATOR


@pytest.mark.rule("gateway.jsonrpc.supported-methods-served")
def test_fee_history_matches_the_blocks(gateway: GatewayClient) -> None:
    """Each block's base fee and gas used ratio are the block's own (eth_getBlockByNumber), and
    the extra base fee is EIP-1559's from the newest block."""
    newest = settled_block(gateway)  # a lagging node of a spread gateway knows it
    history = result_of(gateway, "eth_feeHistory", ["0x2", hex(newest), []])
    oldest = int(history["oldestBlock"], 16)
    block: dict[str, Any] = {}
    for i, ratio in enumerate(history["gasUsedRatio"]):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(oldest + i), False])
        base = block.get("baseFeePerGas", "0x0")  # zeroes for pre-EIP-1559 blocks
        assert int(history["baseFeePerGas"][i], 16) == int(base, 16), (i, history, block)
        used, limit = int(block["gasUsed"], 16), int(block["gasLimit"], 16)
        expected = used / limit if limit else 0.0
        assert math.isclose(ratio, expected, rel_tol=1e-9, abs_tol=1e-12), (i, history, block)
    if "baseFeePerGas" in block:  # the newest block is an EIP-1559 one
        following = eip1559_next_base_fee(
            int(block["baseFeePerGas"], 16), int(block["gasUsed"], 16), int(block["gasLimit"], 16)
        )
        assert int(history["baseFeePerGas"][-1], 16) == following, (history, block)


@pytest.mark.rule("gateway.jsonrpc.supported-methods-served")
def test_mined_transaction_is_found(gateway: GatewayClient) -> None:
    """A transaction of a recent block is found by its hash (eth_getTransactionByHash) and has a
    receipt (eth_getTransactionReceipt): execution-apis answers null only for an unknown hash."""
    newest = settled_block(gateway)  # a lagging node of a spread gateway knows it
    for number in range(newest, max(-1, newest - 16), -1):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(number), True])
        if block and block["transactions"]:
            break
    else:
        pytest.skip("N/A: no transaction in the target's last 16 blocks")
    tx_hash = block["transactions"][0]["hash"]
    found = result_of(gateway, "eth_getTransactionByHash", [tx_hash])
    assert found is not None, f"mined transaction {tx_hash} answered null"
    check_result("eth_getTransactionByHash", found)
    assert (found["hash"], found["blockHash"]) == (tx_hash, block["hash"]), found
    receipt = result_of(gateway, "eth_getTransactionReceipt", [tx_hash])
    assert receipt is not None, f"mined transaction {tx_hash} has a null receipt"
    check_result("eth_getTransactionReceipt", receipt)
    assert receipt["transactionHash"] == tx_hash, receipt
    assert (receipt["blockHash"], receipt["blockNumber"]) == (block["hash"], block["number"])
    typed = next((t for t in block["transactions"] if t.get("type") == "0x2"), None)
    if typed is not None and "baseFeePerGas" in block:
        # execution-apis (receipt.yaml) effectiveGasPrice: after EIP-1559 "equal to baseFeePerGas
        # + min(maxFeePerGas - baseFeePerGas, maxPriorityFeePerGas)"; a 1559 transaction's
        # gasPrice (transaction.yaml) is "the effective gas price paid by the sender"; the
        # block's first type-2 transaction, whatever the type of its first
        if typed["hash"] != tx_hash:
            receipt = result_of(gateway, "eth_getTransactionReceipt", [typed["hash"]])
            assert receipt is not None, f"mined transaction {typed['hash']} has a null receipt"
            check_result("eth_getTransactionReceipt", receipt)
        base = int(block["baseFeePerGas"], 16)
        cap, tip = int(typed["maxFeePerGas"], 16), int(typed["maxPriorityFeePerGas"], 16)
        paid = base + min(cap - base, tip)
        assert int(receipt["effectiveGasPrice"], 16) == paid, (receipt, typed, base)
        assert int(typed["gasPrice"], 16) == paid, (typed, base)


def effective_tip(tx: dict[str, Any], base: int) -> int:
    """EIP-1559: what a transaction pays the producer per gas above the block's base fee."""
    if tx.get("maxFeePerGas") is not None:
        return min(
            int(tx.get("maxPriorityFeePerGas", "0x0"), 16), int(tx["maxFeePerGas"], 16) - base
        )
    return int(tx["gasPrice"], 16) - base


@pytest.mark.rule("gateway.jsonrpc.supported-methods-served")
def test_fee_history_rewards_within_the_blocks_tips(gateway: GatewayClient) -> None:
    """For a recent block with transactions, each reward of eth_feeHistory (the 0th, 50th and
    100th percentile) lies between the smallest and the largest effective tip of the block's
    transactions (eth_getBlockByNumber with full transactions)."""
    newest = settled_block(gateway)  # a lagging node of a spread gateway knows it
    for number in range(newest, max(-1, newest - 16), -1):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(number), True])
        if block and block["transactions"] and "baseFeePerGas" in block:
            break
    else:
        pytest.skip("N/A: no transaction in an EIP-1559 block among the target's last 16")
    base = int(block["baseFeePerGas"], 16)
    tips = [effective_tip(tx, base) for tx in block["transactions"]]
    history = result_of(gateway, "eth_feeHistory", ["0x1", hex(number), [0, 50, 100]])
    assert int(history["oldestBlock"], 16) == number, history
    (rewards,) = history["reward"]
    for pct, reward in zip([0, 50, 100], rewards, strict=True):
        assert min(tips) <= int(reward, 16) <= max(tips), (
            f"block {number}: the {pct}th percentile reward {reward} is outside the block's "
            f"effective tips {min(tips)}..{max(tips)}"
        )


@pytest.mark.rule("gateway.jsonrpc.supported-methods-served")
def test_block_transaction_counts_are_the_blocks(gateway: GatewayClient) -> None:
    """execution-apis: eth_getBlockTransactionCountByHash "Returns the number of transactions in
    a block from a block matching the given block hash", ...ByNumber "in a block matching the
    given block number": for the genesis block and the newest block holding a transaction, both
    answer the length of that block's transaction list (not another block's)."""
    start = settled_block(gateway)  # a node behind the head knows every block asked
    blocks = [result_of(gateway, "eth_getBlockByNumber", ["0x0", False])]
    for number in range(start, max(0, start - 16), -1):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(number), False])
        if block and block["transactions"]:
            blocks.append(block)
            break
    for block in blocks:
        wanted = hex(len(block["transactions"]))
        by_hash = result_of(gateway, "eth_getBlockTransactionCountByHash", [block["hash"]])
        by_number = result_of(gateway, "eth_getBlockTransactionCountByNumber", [block["number"]])
        assert (by_hash, by_number) == (wanted, wanted), (block["number"], by_hash, by_number)
