"""The embedded upstream: an eth-tester (py-evm) chain per network behind our own JSON-RPC adapter.

eth-tester is synchronous and slow to import, so the chain is imported and built on the first
request that needs it (CHAIN_FREE never does), and every call runs under a lock in a worker
thread (see upstream.py). The chain prefunds eth-tester's default accounts; the first one's key
is the documented dev key (DEV_PRIVATE_KEY) that clients such as web3.py sign with.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from reference_impl.gateway import evm_limits
from reference_impl.gateway import params as p
from reference_impl.gateway.errors import LIMIT_EXCEEDED, SERVER_ERROR, RpcError
from reference_impl.gateway.fees import fee_history
from reference_impl.gateway.format import Formatter

DEV_PRIVATE_KEY = "0x" + "00" * 31 + "01"
DEV_ADDRESS = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
PRIORITY_FEE = 10**9
# A raw transaction over this size is refused before it is decoded, as geth's pool refuses it
# (txMaxSize: 4 slots of 32 KiB; -32000 "oversized data").
MAX_RAW_TRANSACTION_BYTES = 128 * 1024
# What one chain keeps of sent transactions. Every block stays in memory and py-evm cannot drop
# an old one (each state is built on the ones before), so a full chain refuses more with -32005
# and keeps answering reads of what it holds; a restart of the reference gives fresh chains.
# Measured in-process: ~18 KB of RSS per small transfer, ~1.4 MB per 120 KB transaction, so
# either cap holds one chain to ~100 MB.
MAX_CHAIN_TRANSACTIONS = 4096
MAX_CHAIN_TRANSACTION_BYTES = 8 * 1024 * 1024
# Methods answered from the configuration alone: they never build the chain, so a client that
# only asks these (the suite's preflight asks eth_chainId; the envelope and network checks)
# does not pay eth-tester's import and the genesis (~0.8 s of CPU, ~2 s at a loaded machine).
CHAIN_FREE = frozenset(
    {"web3_clientVersion", "net_version", "eth_chainId", "web3_sha3", "net_listening",
     "eth_syncing", "eth_mining"}
)  # fmt: skip


def _tester(chain_id: int) -> Any:
    """An EthereumTester whose py-evm chain reports `chain_id` (eth-tester fixes its own)."""
    from eth_tester import EthereumTester, PyEVMBackend

    class NetworkBackend(PyEVMBackend):  # type: ignore[misc]
        def __init__(self) -> None:
            self._network_chain_id = chain_id
            super().__init__()

        def reset_to_genesis(self, *args: Any, **kwargs: Any) -> None:
            super().reset_to_genesis(*args, **kwargs)
            # py-evm builds each VM's ChainContext from chain.chain_id, so this sets what the
            # CHAINID opcode, EIP-155 signature checks and eth_chainId all see.
            self.chain.chain_id = self._network_chain_id

    return EthereumTester(backend=NetworkBackend())


def _seed(tester: Any) -> None:
    """Mine one transfer between two prefunded accounts (never the dev account, whose nonce
    clients expect at 0), so that the latest block of a new chain carries a transaction, as on
    a live network, and the boolean of eth_getBlockByNumber has something to select."""
    accounts = tester.get_accounts()
    transfer = {"from": accounts[1], "to": accounts[2], "gas": 21000, "value": 1}
    tester.send_transaction(
        {**transfer, "max_fee_per_gas": 10 * PRIORITY_FEE, "max_priority_fee_per_gas": PRIORITY_FEE}
    )


class EmbeddedChain:
    """One network's test chain; `request` is synchronous and thread-safe."""

    def __init__(
        self,
        chain_id: int,
        client_version: str,
        fmt: Formatter,
        gas_cap: int = 50_000_000,
        evm_timeout_s: float = 5.0,
        max_transactions: int = MAX_CHAIN_TRANSACTIONS,
        max_transaction_bytes: int = MAX_CHAIN_TRANSACTION_BYTES,
    ) -> None:
        self.chain_id = chain_id
        self.max_transactions = max_transactions
        self.max_transaction_bytes = max_transaction_bytes
        self._kept_transactions = 0  # sent transactions the chain took, and their raw bytes
        self._kept_bytes = 0
        self.gas_cap = gas_cap
        self.evm_timeout_s = evm_timeout_s
        self.client_version = client_version
        self.fmt = fmt
        self._lock = threading.Lock()
        self._et: Any = None
        self._handlers: dict[str, Callable[..., Any]] = {
            "web3_clientVersion": lambda: self.client_version,
            "net_version": lambda: str(self.chain_id),
            "eth_chainId": lambda: self.fmt.qty(self.chain_id),
            "eth_blockNumber": lambda: self.fmt.qty(self._block("latest")["number"]),
            "eth_gasPrice": self._gas_price,
            "eth_getBlockByNumber": self._block_by_number,
            "eth_getBlockByHash": self._block_by_hash,
            "eth_getBalance": lambda a, b: self.fmt.qty(self._state("get_balance", a, b)),
            "eth_getTransactionCount": lambda a, b: self.fmt.qty(self._state("get_nonce", a, b)),
            "eth_getCode": lambda a, b: self.fmt.hexdata(self._state("get_code", a, b)),
            "eth_call": self._call,
            "eth_estimateGas": self._estimate_gas,
            "eth_sendRawTransaction": self._send_raw,
            "eth_getTransactionByHash": self._transaction,
            "eth_getTransactionReceipt": self._receipt,
            "eth_getLogs": self._logs,
            # more of the provider's supported methods (methods.yaml)
            "web3_sha3": self._sha3,
            "net_listening": lambda: True,
            "eth_syncing": lambda: False,
            "eth_mining": lambda: False,  # blocks are made on demand, nothing is mined
            "eth_feeHistory": self._fee_history,
            "eth_getStorageAt": self._storage_at,
            "eth_getBlockTransactionCountByNumber": self._tx_count_by_number,
            "eth_getBlockTransactionCountByHash": self._tx_count_by_hash,
        }

    def request(self, method: str, params: Any, deadline: float | None = None) -> Any:
        """Result of one call; RpcError for anything the caller did wrong or the chain refused.

        EVM execution (eth_call, eth_estimateGas) stops at `evm_timeout_s` after it starts or
        at `deadline` (a `time.monotonic()` value: the batch's budget), whichever is first.
        """
        args = p.check(method, params)
        if method in CHAIN_FREE:
            return self._handlers[method](*args)
        with self._lock:
            if self._et is None:
                self._et = _tester(self.chain_id)
                _seed(self._et)
            if method not in ("eth_call", "eth_estimateGas"):
                return self._handlers[method](*args)
            stop = time.monotonic() + self.evm_timeout_s
            stop = stop if deadline is None else min(stop, deadline)
            with evm_limits.deadline(stop):
                return self._handlers[method](*args)

    def answers(self, method: str) -> bool:
        """Whether the embedded chain can answer this method (methods.yaml `embedded`)."""
        return method in self._handlers

    # -- helpers -----------------------------------------------------------------------------
    def _block(self, ref: int | str, full: bool = False) -> Any:
        return self._et.get_block_by_number(ref, full)

    def _state(self, name: str, account: str, block: int | str) -> Any:
        from eth_tester.exceptions import BlockNotFound

        try:
            return getattr(self._et, name)(account, block)
        except BlockNotFound:
            raise RpcError(SERVER_ERROR, "header not found") from None

    def _gas_price(self) -> str:
        base = self._block("pending").get("base_fee_per_gas") or 0
        return self.fmt.qty(int(base) + PRIORITY_FEE)

    def _block_by_number(self, ref: int | str, full: bool) -> Any:
        from eth_tester.exceptions import BlockNotFound

        try:
            return self.fmt.block(self._block(ref, full), full)
        except BlockNotFound:
            return None

    def _block_by_hash(self, block_hash: str, full: bool) -> Any:
        from eth_tester.exceptions import BlockNotFound

        try:
            return self.fmt.block(self._et.get_block_by_hash(block_hash, full), full)
        except BlockNotFound:
            return None

    def _tx_fields(self, call: dict[str, Any]) -> dict[str, Any]:
        tx = dict(call)
        # py-evm charges calls like transactions; a call without `from` runs as the funded dev
        # account so that it succeeds the way a node's fee-free eth_call does.
        tx.setdefault("from", DEV_ADDRESS.lower())
        if tx.get("to") is None:
            tx.pop("to", None)
        return tx

    def _run(self, name: str, call: dict[str, Any], block: int | str) -> Any:
        from eth_tester.exceptions import BlockNotFound, TransactionFailed
        from eth_tester.exceptions import ValidationError as TesterInvalid
        from eth_utils.exceptions import ValidationError as EvmInvalid

        fields = self._tx_fields(call)
        if name == "call" and "gas" not in fields:  # eth-tester would give the block's limit
            fields["gas"] = min(self.gas_cap, int(self._block("latest")["gas_limit"]))
        try:
            return getattr(self._et, name)(evm_limits.capped_gas(fields, self.gas_cap), block)
        except evm_limits.ExecutionTimeout:
            message = f"execution aborted (timeout = {self.evm_timeout_s:g}s)"
            raise RpcError(SERVER_ERROR, message) from None
        except BlockNotFound:
            raise RpcError(SERVER_ERROR, "header not found") from None
        except TransactionFailed as exc:
            reason = exc.args[0] if exc.args else None
            data = self.fmt.hexdata(reason) if isinstance(reason, bytes) else None
            raise RpcError(SERVER_ERROR, "execution reverted", data) from None
        except (TesterInvalid, EvmInvalid) as exc:
            raise RpcError(SERVER_ERROR, f"invalid transaction: {exc}") from None

    def _call(self, call: dict[str, Any], block: int | str) -> str:
        return self.fmt.hexdata(self._run("call", call, block))

    def _estimate_gas(self, call: dict[str, Any], block: int | str) -> str:
        return self.fmt.qty(self._run("estimate_gas", call, block))

    def _send_raw(self, raw: str) -> str:
        size = (len(raw) - 2) // 2  # params checked it: 0x and an even number of hex digits
        if size > MAX_RAW_TRANSACTION_BYTES:
            raise RpcError(SERVER_ERROR, "oversized data")
        if (
            self._kept_transactions >= self.max_transactions
            or self._kept_bytes + size > self.max_transaction_bytes
        ):
            message = (
                f"limit exceeded: this test chain keeps at most {self.max_transactions} "
                f"transactions or {self.max_transaction_bytes} bytes of them; restart the "
                "reference for a fresh chain"
            )
            raise RpcError(LIMIT_EXCEEDED, message)
        try:
            builder = self._et.backend.chain.get_vm().get_transaction_builder()
            signed_for = getattr(builder.decode(bytes.fromhex(raw[2:])), "chain_id", None)
        except Exception as exc:
            raise RpcError(SERVER_ERROR, f"transaction rejected: {exc}"[:300]) from None
        if signed_for is not None and signed_for != self.chain_id:
            # py-evm leaves this check to the node; a real node refuses a foreign chain id
            message = f"invalid chain id {signed_for}: this network is {self.chain_id}"
            raise RpcError(SERVER_ERROR, f"transaction rejected: {message}")
        try:
            tx_hash = self._et.send_raw_transaction(raw)
        except Exception as exc:  # rlp, signature, nonce, funds: all a refusal, not a crash
            raise RpcError(SERVER_ERROR, f"transaction rejected: {exc}"[:300]) from None
        self._kept_transactions += 1
        self._kept_bytes += size
        return self.fmt.hexdata(tx_hash)

    def _transaction(self, tx_hash: str) -> Any:
        from eth_tester.exceptions import TransactionNotFound

        try:
            tx = self._et.get_transaction_by_hash(tx_hash)
        except TransactionNotFound:
            return None
        number = tx.get("block_number")
        stamp = None if number is None else self._block(number)["timestamp"]
        return self.fmt.transaction(tx, stamp)

    def _receipt(self, tx_hash: str) -> Any:
        from eth_tester.exceptions import TransactionNotFound

        try:
            receipt = self._et.get_transaction_receipt(tx_hash)
        except TransactionNotFound:
            return None
        if receipt.get("block_number") is None:
            return None  # still pending
        return self.fmt.receipt(receipt)

    def _logs(self, flt: dict[str, Any]) -> list[dict[str, Any]]:
        from eth_tester.exceptions import BlockNotFound

        try:
            if "block_hash" in flt:
                number = self._et.get_block_by_hash(flt["block_hash"])["number"]
                frm = to = number
            else:
                frm, to = self._bound(flt.get("from_block")), self._bound(flt.get("to_block"))
        except BlockNotFound:
            raise RpcError(SERVER_ERROR, "unknown block") from None
        if frm > to:
            return []
        entries = self._et.get_logs(
            from_block=frm, to_block=to, address=flt.get("address"), topics=flt.get("topics")
        )
        return [self.fmt.log(e) for e in entries]

    @staticmethod
    def _sha3(data: str) -> str:
        from eth_utils.crypto import keccak

        return "0x" + keccak(hexstr=data).hex()

    def _fee_history(self, count: int, newest: int | str, pct: list[float]) -> Any:
        from eth_tester.exceptions import BlockNotFound

        try:
            number = int(self._block(newest)["number"])
        except BlockNotFound:
            raise RpcError(SERVER_ERROR, "unknown block") from None

        def receipt_gas(tx_hash: Any) -> int:
            return int(self._et.get_transaction_receipt(tx_hash)["gas_used"])

        return fee_history(
            lambda n: self._block(n, True), receipt_gas, number, count, pct, self.fmt.qty
        )

    def _storage_at(self, account: str, slot: int, block: int | str) -> str:
        from eth_tester.exceptions import BlockNotFound

        try:
            value = self._et.get_storage_at(account, hex(slot), block)
        except BlockNotFound:
            raise RpcError(SERVER_ERROR, "header not found") from None
        return "0x" + format(int(value, 16) if isinstance(value, str) else int(value), "064x")

    def _tx_count_by_number(self, ref: int | str) -> str | None:
        from eth_tester.exceptions import BlockNotFound

        try:
            return self.fmt.qty(len(self._block(ref)["transactions"]))
        except BlockNotFound:
            return None

    def _tx_count_by_hash(self, block_hash: str) -> str | None:
        from eth_tester.exceptions import BlockNotFound

        try:
            return self.fmt.qty(len(self._et.get_block_by_hash(block_hash)["transactions"]))
        except BlockNotFound:
            return None

    def _bound(self, ref: int | str | None) -> int:
        latest = int(self._block("latest")["number"])
        if ref is None or ref in ("latest", "safe", "finalized", "pending"):
            return latest
        if ref == "earliest":
            return 0
        return min(int(ref), latest)
