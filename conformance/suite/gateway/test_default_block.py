"""An omitted optional block param reads the latest state (execution-apis: "default: 'latest'").

The execution API makes the Block param of the state methods (eth_getTransactionCount,
eth_getBalance, eth_getCode, eth_getStorageAt) optional with the default 'latest'. Checked
without a race on a live network: a nonce only grows, so once a mined transaction of block B
with nonce n is seen, its sender's transaction count read without a block is at least n + 1,
whatever blocks came since. Read any other way (the genesis state: 'earliest'), the count
misses that transaction. A gateway that refuses the omitted block is judged by
gateway.jsonrpc.invalid-params, not here.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.gateway import GatewayClient
from conformance.suite.gateway.helpers import (
    check_response,
    result_of,
    served_network,
    settled_block,
)
from conformance.suite.setup_check import not_checked


def _recent_transaction(gateway: GatewayClient) -> dict[str, Any]:
    start = settled_block(gateway)
    for number in range(start, max(-1, start - 16), -1):
        block = result_of(gateway, "eth_getBlockByNumber", [hex(number), True])
        if block and block.get("transactions"):
            tx: dict[str, Any] = block["transactions"][0]
            return tx
    pytest.skip(f"N/A: no transaction in the 16 blocks below block {start}")


@pytest.mark.rule("gateway.jsonrpc.omitted-block-is-latest")
def test_omitted_block_reads_the_latest_state(gateway: GatewayClient) -> None:
    """eth_getTransactionCount of a mined transaction's sender, block omitted, counts it."""
    tx = _recent_transaction(gateway)
    sender, nonce = tx["from"], int(tx["nonce"], 16)
    reply = gateway.call(served_network(gateway), "eth_getTransactionCount", [sender], id=41)
    assert reply.status < 500, f"the omitted block answered a server failure: {reply.describe()}"
    check_response(reply.json)
    if "result" not in reply.json:
        not_checked(f"the omitted block was not served: {reply.describe()}")
    count = reply.json["result"]
    assert isinstance(count, str) and count.startswith("0x"), reply.describe()
    assert int(count, 16) >= nonce + 1, (
        f"{sender} sent a mined transaction with nonce {nonce}, yet its count read without a "
        f"block is {count}: not the latest state"
    )
