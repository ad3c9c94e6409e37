"""web3.py (PyPI `web3`, 7.x/8.x) against the reference gateway: reads and a signed transfer.

The reference's embedded chains prefund eth-tester's default accounts; the first one's key
(0x00..01, address 0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf) is the documented dev key.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.reference_process import launch_reference, stop_process

web3 = pytest.importorskip("web3")
from eth_account import Account  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEV_PRIVATE_KEY = "0x" + "00" * 31 + "01"
RECIPIENT = "0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF"


@pytest.fixture(scope="module")
def sepolia(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("web3")
    proc, ready = launch_reference(tmp / "data")
    url = ready["surfaces"]["gateway"]["url"]
    yield f"{url}/v1/sepolia"
    stop_process(proc)


def test_web3_reads_and_sends(sepolia: str) -> None:
    """web3 reads chain id, block number and a block, then a signed transfer gets a receipt."""
    w3 = web3.Web3(web3.Web3.HTTPProvider(sepolia, request_kwargs={"timeout": 60}))
    assert w3.eth.chain_id == 11155111
    head = w3.eth.block_number
    block = w3.eth.get_block(head)
    assert block["number"] == head and len(block["logsBloom"]) == 256
    sender = Account.from_key(DEV_PRIVATE_KEY)
    tx = {
        "to": RECIPIENT,
        "value": 12345,
        "gas": 21000,
        "nonce": w3.eth.get_transaction_count(sender.address),
        "chainId": w3.eth.chain_id,
        "maxFeePerGas": 2 * w3.eth.gas_price,
        "maxPriorityFeePerGas": 10**9,
    }
    before = w3.eth.get_balance(RECIPIENT)
    tx_hash = w3.eth.send_raw_transaction(sender.sign_transaction(tx).raw_transaction)
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
    assert receipt["status"] == 1 and receipt["transactionHash"] == tx_hash
    assert w3.eth.get_balance(RECIPIENT) == before + 12345
    assert w3.eth.get_transaction(tx_hash)["from"] == sender.address
    assert w3.eth.block_number > head
