"""Members of a mined transaction object that execution-apis made required after the spec was
written, each judged from its own date: a typed transaction's yParity (#446, 2023-07-20) and the
holding block's timestamp (#749, 2026-02-18). Every transaction of a settled block is checked as
the full block gives it; a few of each type again by hash, since a node formats that answer
apart (a few: a sepolia block holds hundreds, and a rate-limited gateway's 429 on the hundredth
lookup would read as a FAIL)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from conformance.clients.gateway import GatewayClient
from conformance.suite.gateway.helpers import result_of, settled_block

LOOK_BACK = 16  # blocks below the settled one searched for a transaction
BY_HASH_PER_TYPE = 3  # transactions of each type looked up again by hash
# signed typed transactions with yParity in execution-apis, each from the day its schema came:
# 0x1/0x2 the rule's own date (#446), 0x3 blobs (#477), 0x4 set-code (#575)
SIGNED_TYPES = {1: dt.date(2023, 7, 20), 2: dt.date(2023, 7, 20),
                3: dt.date(2023, 10, 18), 4: dt.date(2025, 1, 3)}  # fmt: skip
# a uint or, since #575, a byte: 0x0, 0x1, 0x00, 0x01
PARITY = re.compile(r"0x0?[01]")


def _type_of(tx: Any) -> int | None:
    if not isinstance(tx, dict):
        return None
    try:
        return int(str(tx.get("type", "0x0")), 16)
    except ValueError:
        return None


def _full_block_with(gateway: GatewayClient, wanted: str, types: set[int]) -> dict[str, Any]:
    """The newest settled block holding a transaction (of one of `types`, when given)."""
    newest = settled_block(gateway)  # a lagging node of a spread gateway knows it
    for number in range(newest, max(-1, newest - LOOK_BACK), -1):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(number), True])
        if block and any(not types or _type_of(tx) in types for tx in block["transactions"]):
            return dict(block)
    pytest.skip(f"N/A: no {wanted} transaction in the target's last {LOOK_BACK} settled blocks")


def _both_forms(gateway: GatewayClient, txs: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """Every transaction as the full block gave it, and the first few of each type by hash
    (one answered null is left out: finding a mined transaction by hash is another rule's)."""
    forms: list[tuple[str, Any]] = [(f"block's {tx['hash']}", tx) for tx in txs]
    looked_up: dict[int | None, int] = {}
    for tx in txs:
        kind = _type_of(tx)
        if looked_up.get(kind, 0) >= BY_HASH_PER_TYPE:
            continue
        looked_up[kind] = looked_up.get(kind, 0) + 1
        found = result_of(gateway, "eth_getTransactionByHash", [tx["hash"]])
        if found is not None:  # a node with a bounded transaction index: not these rules'
            forms.append((f"by hash {tx['hash']}", found))
    return forms


@pytest.mark.rule("gateway.jsonrpc.typed-transaction-y-parity")
def test_typed_transactions_carry_y_parity(gateway: GatewayClient, as_of: dt.date) -> None:
    """Every signed typed transaction of the block whose type execution-apis defined by the
    as-of date has yParity, the signature's parity: 0 or 1 (not a legacy v such as 27 or
    2 * chainId + 35)."""
    types = {kind for kind, since in SIGNED_TYPES.items() if since <= as_of}
    block = _full_block_with(gateway, "signed typed", types)
    typed = [tx for tx in block["transactions"] if _type_of(tx) in types]
    for where, tx in _both_forms(gateway, typed):
        assert "yParity" in tx, f"{where}: a type {tx.get('type')} transaction without yParity"
        value = tx["yParity"]
        assert isinstance(value, str) and PARITY.fullmatch(value), f"{where}: yParity {value!r}"


@pytest.mark.rule("gateway.jsonrpc.transaction-block-timestamp")
def test_mined_transactions_carry_their_block_timestamp(gateway: GatewayClient) -> None:
    """Every transaction of the block carries blockTimestamp equal to the block's timestamp,
    with its blockHash and blockNumber, in the full block and by hash."""
    block = _full_block_with(gateway, "mined", set())
    stamp = block["timestamp"]
    for where, tx in _both_forms(gateway, block["transactions"]):
        assert "blockTimestamp" in tx, f"{where}: a mined transaction without blockTimestamp"
        assert int(tx["blockTimestamp"], 16) == int(stamp, 16), (where, tx["blockTimestamp"])
        assert (tx["blockHash"], tx["blockNumber"]) == (block["hash"], block["number"]), where
