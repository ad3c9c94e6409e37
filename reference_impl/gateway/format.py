"""Renders eth-tester's Python objects in the execution API's JSON shapes.

Quantities are minimal hex, data is even-length hex, logsBloom is 256 bytes. `padded` and
`hashes_only` exist only for the `padded_quantities` and
`transaction_hashes_only` deviations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BLOOM_BYTES = 256


class Formatter:
    def __init__(self, padded: bool = False, hashes_only: bool = False) -> None:
        self.padded = padded
        self.hashes_only = hashes_only

    def qty(self, value: int) -> str:
        text = hex(int(value))
        return "0x0" + text[2:] if self.padded else text

    @staticmethod
    def hexdata(value: Any) -> str:
        if isinstance(value, bytes | bytearray):
            return "0x" + bytes(value).hex()
        text = str(value).lower()
        return text if len(text) % 2 == 0 else "0x0" + text[2:]

    @staticmethod
    def addr(value: Any) -> str | None:
        if value in (None, "", b""):
            return None
        return Formatter.hexdata(value)

    @staticmethod
    def bloom(value: Any) -> str:
        if isinstance(value, bytes | bytearray):
            return "0x" + bytes(value).rjust(BLOOM_BYTES, b"\0").hex()
        return "0x" + int(value).to_bytes(BLOOM_BYTES, "big").hex()

    def _map(self, obj: dict[str, Any], fields: dict[str, tuple[str, str]]) -> dict[str, Any]:
        kinds: dict[str, Callable[[Any], Any]] = {
            "qty": self.qty,
            "data": self.hexdata,
            "addr": self.addr,
            "bloom": self.bloom,
            "raw": lambda v: v,
        }
        return {out: kinds[kind](obj[src]) for out, (src, kind) in fields.items() if src in obj}

    def block(self, blk: dict[str, Any], full: bool) -> dict[str, Any]:
        out = self._map(blk, BLOCK_FIELDS)
        out["miner"] = self.hexdata(blk["coinbase"])
        txs = blk.get("transactions", ())
        stamp = blk.get("timestamp")
        if full and not self.hashes_only:
            out["transactions"] = [self.transaction(t, stamp) for t in txs]
        else:
            out["transactions"] = [self.hexdata(t["hash"] if full else t) for t in txs]
        out["uncles"] = [self.hexdata(u) for u in blk.get("uncles", ())]
        if "withdrawals" in blk:
            out["withdrawals"] = [self._map(w, WITHDRAWAL_FIELDS) for w in blk["withdrawals"]]
        return out

    def transaction(self, tx: dict[str, Any], block_timestamp: int | None) -> dict[str, Any]:
        out = self._map(tx, TRANSACTION_FIELDS)
        if block_timestamp is not None:
            out["blockTimestamp"] = self.qty(block_timestamp)
        out["to"] = self.addr(tx.get("to"))
        out["type"] = self.qty(int(str(tx.get("type", "0x0")), 16))
        if "access_list" in tx:
            out["accessList"] = [
                {
                    "address": self.hexdata(entry["address"]),
                    "storageKeys": [self.hexdata(k) for k in entry["storage_keys"]],
                }
                for entry in tx["access_list"]
            ]
        return out

    def receipt(self, rcpt: dict[str, Any]) -> dict[str, Any]:
        out = self._map(rcpt, RECEIPT_FIELDS)
        out["to"] = self.addr(rcpt.get("to"))
        out["contractAddress"] = self.addr(rcpt.get("contract_address"))
        out["type"] = self.qty(int(str(rcpt.get("type", "0x0")), 16))
        out["logs"] = [self.log(entry) for entry in rcpt.get("logs", ())]
        out["logsBloom"] = self.bloom(logs_bloom(rcpt.get("logs", ())))
        return out

    def log(self, entry: dict[str, Any]) -> dict[str, Any]:
        out = self._map(entry, LOG_FIELDS)
        out["removed"] = False
        out["topics"] = [self.hexdata(t) for t in entry.get("topics", ())]
        return out


def logs_bloom(logs: Any) -> int:
    """The bloom of a receipt's logs: eth-tester leaves receipts without one."""
    from eth_bloom.bloom import BloomFilter

    bloom = BloomFilter()
    for entry in logs:
        bloom.add(bytes.fromhex(entry["address"][2:]))
        for topic in entry.get("topics", ()):
            bloom.add(bytes.fromhex(str(topic)[2:]))
    return int(bloom)


# JSON name -> (eth-tester name, kind)
BLOCK_FIELDS: dict[str, tuple[str, str]] = {
    "number": ("number", "qty"),
    "hash": ("hash", "data"),
    "parentHash": ("parent_hash", "data"),
    "nonce": ("nonce", "data"),
    "sha3Uncles": ("sha3_uncles", "data"),
    "logsBloom": ("logs_bloom", "bloom"),
    "transactionsRoot": ("transactions_root", "data"),
    "stateRoot": ("state_root", "data"),
    "receiptsRoot": ("receipts_root", "data"),
    "difficulty": ("difficulty", "qty"),
    "totalDifficulty": ("total_difficulty", "qty"),
    "extraData": ("extra_data", "data"),
    "size": ("size", "qty"),
    "gasLimit": ("gas_limit", "qty"),
    "gasUsed": ("gas_used", "qty"),
    "timestamp": ("timestamp", "qty"),
    "mixHash": ("mix_hash", "data"),
    "baseFeePerGas": ("base_fee_per_gas", "qty"),
    "withdrawalsRoot": ("withdrawals_root", "data"),
    "blobGasUsed": ("blob_gas_used", "qty"),
    "excessBlobGas": ("excess_blob_gas", "qty"),
    "parentBeaconBlockRoot": ("parent_beacon_block_root", "data"),
    "requestsHash": ("requests_hash", "data"),
}
WITHDRAWAL_FIELDS: dict[str, tuple[str, str]] = {
    "index": ("index", "qty"),
    "validatorIndex": ("validator_index", "qty"),
    "address": ("address", "data"),
    "amount": ("amount", "qty"),
}
TRANSACTION_FIELDS: dict[str, tuple[str, str]] = {
    "blockHash": ("block_hash", "data"),
    "blockNumber": ("block_number", "qty"),
    "from": ("from", "data"),
    "gas": ("gas", "qty"),
    "gasPrice": ("gas_price", "qty"),
    "maxFeePerGas": ("max_fee_per_gas", "qty"),
    "maxPriorityFeePerGas": ("max_priority_fee_per_gas", "qty"),
    "hash": ("hash", "data"),
    "input": ("data", "data"),
    "nonce": ("nonce", "qty"),
    "transactionIndex": ("transaction_index", "qty"),
    "value": ("value", "qty"),
    "chainId": ("chain_id", "qty"),
    "v": ("v", "qty"),
    "r": ("r", "qty"),
    "s": ("s", "qty"),
    "yParity": ("y_parity", "qty"),
}
RECEIPT_FIELDS: dict[str, tuple[str, str]] = {
    "transactionHash": ("transaction_hash", "data"),
    "transactionIndex": ("transaction_index", "qty"),
    "blockHash": ("block_hash", "data"),
    "blockNumber": ("block_number", "qty"),
    "from": ("from", "data"),
    "cumulativeGasUsed": ("cumulative_gas_used", "qty"),
    "gasUsed": ("gas_used", "qty"),
    "effectiveGasPrice": ("effective_gas_price", "qty"),
    "status": ("status", "qty"),
}
LOG_FIELDS: dict[str, tuple[str, str]] = {
    "logIndex": ("log_index", "qty"),
    "transactionIndex": ("transaction_index", "qty"),
    "transactionHash": ("transaction_hash", "data"),
    "blockHash": ("block_hash", "data"),
    "blockNumber": ("block_number", "qty"),
    "address": ("address", "data"),
    "data": ("data", "data"),
}
