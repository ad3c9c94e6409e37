"""Members of a mined transaction object that execution-apis made required after the spec was
written, each judged from its own date: a typed transaction's yParity (#446, 2023-07-20) and the
holding block's timestamp (#749, 2026-02-18). Each is checked on every transaction of a settled
block that has them, in the full block and again by hash, since a node formats both answers."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.gateway import GatewayClient
from conformance.suite.gateway.helpers import result_of, settled_block

LOOK_BACK = 16  # blocks below the settled one searched for a transaction


def _full_block_with(gateway: GatewayClient, wanted: str) -> dict[str, Any]:
    """The newest settled block holding a transaction `wanted` accepts (full transactions)."""
    newest = settled_block(gateway)  # a lagging node of a spread gateway knows it
    for number in range(newest, max(-1, newest - LOOK_BACK), -1):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(number), True])
        if block and any(_is(wanted, tx) for tx in block["transactions"]):
            return dict(block)
    pytest.skip(f"N/A: no {wanted} transaction in the target's last {LOOK_BACK} settled blocks")


def _is(wanted: str, tx: Any) -> bool:
    if not isinstance(tx, dict):
        return False
    return wanted == "mined" or int(str(tx.get("type", "0x0")), 16) != 0


def _both_forms(gateway: GatewayClient, txs: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """Each transaction as the full block gave it and as eth_getTransactionByHash gives it."""
    forms: list[tuple[str, Any]] = []
    for tx in txs:
        found = result_of(gateway, "eth_getTransactionByHash", [tx["hash"]])
        assert found is not None, f"mined transaction {tx['hash']} answered null"
        forms += [(f"block's {tx['hash']}", tx), (f"by hash {tx['hash']}", found)]
    return forms


@pytest.mark.rule("gateway.jsonrpc.typed-transaction-y-parity")
def test_typed_transactions_carry_y_parity(gateway: GatewayClient) -> None:
    """Every typed transaction of the block has yParity 0x0 or 0x1 (the signature's parity, not
    a legacy v such as 27 or 2 * chainId + 35), and a v beside it is the same parity."""
    block = _full_block_with(gateway, "typed")
    typed = [tx for tx in block["transactions"] if _is("typed", tx)]
    for where, tx in _both_forms(gateway, typed):
        assert "yParity" in tx, f"{where}: a type {tx.get('type')} transaction without yParity"
        assert tx["yParity"] in ("0x0", "0x1"), f"{where}: yParity {tx['yParity']!r}"
        if tx.get("v") is not None:
            assert int(tx["v"], 16) == int(tx["yParity"], 16), (where, tx["v"], tx["yParity"])


@pytest.mark.rule("gateway.jsonrpc.transaction-block-timestamp")
def test_mined_transactions_carry_their_block_timestamp(gateway: GatewayClient) -> None:
    """Every transaction of the block carries blockTimestamp equal to the block's timestamp,
    with its blockHash and blockNumber, in the full block and by hash."""
    block = _full_block_with(gateway, "mined")
    stamp = block["timestamp"]
    for where, tx in _both_forms(gateway, block["transactions"]):
        assert "blockTimestamp" in tx, f"{where}: a mined transaction without blockTimestamp"
        assert int(tx["blockTimestamp"], 16) == int(stamp, 16), (where, tx["blockTimestamp"])
        assert (tx["blockHash"], tx["blockNumber"]) == (block["hash"], block["number"]), where
