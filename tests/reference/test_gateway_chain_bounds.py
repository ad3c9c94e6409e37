"""The embedded chain's store is bounded (hostile round 8).

`eth_sendRawTransaction` signed with the dev key mined one block per transaction, in memory, for
ever: a client in a loop grew the process without end (measured in-process: ~18 KB of RSS per
small transfer, ~1.4 MB per 120 KB transaction; one raw transaction could be ~500 KB, the
gateway's 1 MiB body holding its hex). Now one raw transaction over 128 KiB is -32000
`oversized data` (geth's pool limit and message), and a chain that holds
`MAX_CHAIN_TRANSACTIONS` sent transactions or `MAX_CHAIN_TRANSACTION_BYTES` of them refuses more
with -32005 while what it holds stays readable (docs/decisions.md, Area B).
"""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account
from eth_utils import to_checksum_address

from reference_impl.gateway import chain as chain_module
from reference_impl.gateway.chain import EmbeddedChain
from reference_impl.gateway.errors import LIMIT_EXCEEDED, SERVER_ERROR, RpcError
from reference_impl.gateway.format import Formatter

SEPOLIA = 11155111
TO = "0x" + "22" * 20
KIB = 1024


def sign(chain_id: int, nonce: int, **fields: Any) -> str:
    """A dev-key EIP-1559 transaction, hex; `fields` override the defaults."""
    tx = {"nonce": nonce, "chainId": chain_id, "gas": 21_000, "maxFeePerGas": 10**10,
          "maxPriorityFeePerGas": 10**9, "value": 0, **fields}  # fmt: skip
    if "to" in tx:
        tx["to"] = to_checksum_address(tx["to"])
    return "0x" + Account.sign_transaction(tx, chain_module.DEV_PRIVATE_KEY).raw_transaction.hex()


def _data_tx(nonce: int, data_bytes: int) -> str:
    """A signed transfer with `data_bytes` of calldata (its raw size a little more)."""
    gas = 21_000 + 16 * data_bytes + 10_000
    return sign(SEPOLIA, nonce, to=TO, gas=gas, data="0x" + "ab" * data_bytes)


def _raw_size(raw: str) -> int:
    return (len(raw) - 2) // 2


def _send(chain: EmbeddedChain, raw: str) -> Any:
    return chain.request("eth_sendRawTransaction", [raw])


def test_oversized_raw_transaction_is_refused() -> None:
    chain = EmbeddedChain(SEPOLIA, "test/1", Formatter())
    limit = 128 * KIB
    raw = _data_tx(0, limit)  # calldata alone is the limit: the raw transaction is more
    assert _raw_size(raw) > limit
    with pytest.raises(RpcError) as refused:
        _send(chain, raw)
    assert (refused.value.code, refused.value.message) == (SERVER_ERROR, "oversized data")
    assert chain.request("eth_getTransactionCount", [chain_module.DEV_ADDRESS, "latest"]) == "0x0"
    fits = _data_tx(0, limit - 200)  # just under: still taken
    assert _raw_size(fits) <= limit
    assert chain.request("eth_getTransactionByHash", [_send(chain, fits)]) is not None


def test_chain_refuses_once_its_byte_budget_is_spent() -> None:
    """At the default budget: ~120 KiB transactions stop well before the loop's end."""
    chain = EmbeddedChain(SEPOLIA, "test/1", Formatter())
    size = 120 * KIB
    budget = getattr(chain_module, "MAX_CHAIN_TRANSACTION_BYTES", 8 * 1024 * KIB)
    most = budget // size + 1  # the budget cannot take more than this
    sent: list[str] = []
    kept = 0
    for nonce in range(most + 2):
        raw = _data_tx(nonce, size)
        try:
            sent.append(_send(chain, raw))
        except RpcError as exc:
            assert exc.code == LIMIT_EXCEEDED and "restart" in exc.message, exc.message
            break
        kept += _raw_size(raw)
    else:
        pytest.fail(f"{len(sent)} transactions of {size} bytes taken, none refused")
    assert 0 < len(sent) <= most and kept <= budget
    head = chain.request("eth_getTransactionReceipt", [sent[-1]])  # what is kept stays readable
    assert head is not None and head["status"] == "0x1"


def test_chain_refuses_past_its_transaction_count() -> None:
    chain = EmbeddedChain(SEPOLIA, "test/1", Formatter(), max_transactions=3)
    hashes = [_send(chain, sign(SEPOLIA, n, to=TO, gas=21_000)) for n in range(3)]
    with pytest.raises(RpcError) as refused:
        _send(chain, sign(SEPOLIA, 3, to=TO, gas=21_000))
    assert refused.value.code == LIMIT_EXCEEDED
    assert "3 transactions" in refused.value.message
    assert all(chain.request("eth_getTransactionByHash", [h]) for h in hashes)
    # a refused transaction is not half-kept: the sender's nonce is where the third left it
    assert chain.request("eth_getTransactionCount", [chain_module.DEV_ADDRESS, "latest"]) == "0x3"


def test_refused_transactions_do_not_count() -> None:
    """A transaction the chain refuses (bad nonce) takes none of the budget."""
    chain = EmbeddedChain(SEPOLIA, "test/1", Formatter(), max_transactions=1)
    with pytest.raises(RpcError) as refused:
        _send(chain, sign(SEPOLIA, 5, to=TO, gas=21_000))
    assert refused.value.code == SERVER_ERROR
    assert _send(chain, sign(SEPOLIA, 0, to=TO, gas=21_000))
