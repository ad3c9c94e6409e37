"""Checks positional JSON-RPC params against methods.yaml and converts them to plain values.

Upstream libraries raise on odd input in their own ways; checking here first is what turns
every malformed parameter into -32602 instead of an internal error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from reference_impl import yaml_data
from reference_impl.gateway.errors import invalid_params

BLOCK_TAGS = ("latest", "earliest", "pending", "safe", "finalized")
# the execution API's uint, ^0x(0|[1-9a-f][0-9a-f]*)$: no leading zero digit (geth refuses them
# too); upper-case digits are still read, as geth and Hardhat read them
_QUANTITY = re.compile(r"\A0x(?:0|[1-9a-fA-F][0-9a-fA-F]{0,63})\Z")
_DATA = re.compile(r"\A0x(?:[0-9a-fA-F]{2})*\Z")
_ADDRESS = re.compile(r"\A0x[0-9a-fA-F]{40}\Z")
_HASH32 = re.compile(r"\A0x[0-9a-fA-F]{64}\Z")
_CALL_QUANTITIES = {
    "gas": "gas",
    "gasPrice": "gas_price",
    "maxFeePerGas": "max_fee_per_gas",
    "maxPriorityFeePerGas": "max_priority_fee_per_gas",
    "value": "value",
    "nonce": "nonce",
}
_CALL_IGNORED = {"chainId", "type", "accessList"}


@cache
def method_specs() -> dict[str, dict[str, Any]]:
    text = (resources.files("reference_impl.gateway") / "methods.yaml").read_text("utf-8")
    specs: dict[str, dict[str, Any]] = yaml_data.load(text)
    return specs


def quantity(value: Any, what: str = "quantity") -> int:
    if not isinstance(value, str) or not _QUANTITY.match(value):
        raise invalid_params(f"{what} must be a hex quantity, got {value!r:.80}")
    return int(value, 16)


def data(value: Any, what: str = "data") -> str:
    if not isinstance(value, str) or not _DATA.match(value):
        raise invalid_params(f"{what} must be even-length 0x-prefixed hex")
    return value.lower()


def address(value: Any, what: str = "address") -> str:
    if not isinstance(value, str) or not _ADDRESS.match(value):
        raise invalid_params(f"{what} must be a 20-byte hex address")
    return value.lower()


def hash32(value: Any, what: str = "hash") -> str:
    if not isinstance(value, str) or not _HASH32.match(value):
        raise invalid_params(f"{what} must be a 32-byte hex hash")
    return value.lower()


def block(value: Any, what: str = "block") -> int | str:
    if isinstance(value, str) and value in BLOCK_TAGS:
        return value
    if isinstance(value, str) and _QUANTITY.match(value):
        return int(value, 16)
    raise invalid_params(f"{what} must be a hex block number or one of {', '.join(BLOCK_TAGS)}")


def boolean(value: Any, what: str = "flag") -> bool:
    if not isinstance(value, bool):
        raise invalid_params(f"{what} must be a boolean")
    return value


def call(value: Any, what: str = "transaction") -> dict[str, Any]:
    """A call object as snake_case keys with int quantities and lower-case hex."""
    if not isinstance(value, dict):
        raise invalid_params(f"{what} must be an object")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in _CALL_QUANTITIES:
            out[_CALL_QUANTITIES[key]] = quantity(item, key)
        elif key in ("from", "to"):
            if item is not None:
                out[key] = address(item, key)
        elif key in ("data", "input"):
            out["data"] = data(item, key)
        elif key not in _CALL_IGNORED:
            raise invalid_params(f"unknown transaction field {key!r:.40}")
    if "gas_price" in out and ("max_fee_per_gas" in out or "max_priority_fee_per_gas" in out):
        raise invalid_params("gasPrice cannot be combined with EIP-1559 fee fields")
    return out


def log_filter(value: Any, what: str = "filter") -> dict[str, Any]:
    """A log filter: from/to block, address (one or a list), topics, or blockHash alone."""
    if not isinstance(value, dict):
        raise invalid_params(f"{what} must be an object")
    unknown = set(value) - {"fromBlock", "toBlock", "address", "topics", "blockHash"}
    if unknown:
        raise invalid_params(f"unknown filter field {sorted(unknown)[0]!r:.40}")
    out: dict[str, Any] = {}
    if "blockHash" in value:
        if "fromBlock" in value or "toBlock" in value:
            raise invalid_params("blockHash cannot be combined with fromBlock/toBlock")
        out["block_hash"] = hash32(value["blockHash"], "blockHash")
    for key, name in (("fromBlock", "from_block"), ("toBlock", "to_block")):
        if value.get(key) is not None:
            out[name] = block(value[key], key)
    addr = value.get("address")
    if isinstance(addr, list):
        out["address"] = [address(a) for a in addr]
    elif addr is not None:
        out["address"] = address(addr)
    topics = value.get("topics")
    if topics is not None:
        if not isinstance(topics, list) or len(topics) > 4:
            raise invalid_params("topics must be a list of at most 4 entries")
        out["topics"] = [_topic(t) for t in topics]
    return out


def _topic(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        return [hash32(t, "topic") for t in value]
    return hash32(value, "topic")


def percentiles(value: Any, what: str = "percentiles") -> list[float]:
    """eth_feeHistory reward percentiles: numbers from 0 to 100, ascending."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 100:
        raise invalid_params(f"{what} must be a list of at most 100 numbers")
    out: list[float] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not 0 <= item <= 100:
            raise invalid_params(f"{what}: each percentile is a number from 0 to 100")
        if out and item < out[-1]:
            raise invalid_params(f"{what} must be in ascending order")
        out.append(float(item))
    return out


def hashes(value: Any, what: str = "keys") -> list[str]:
    if not isinstance(value, list):
        raise invalid_params(f"{what} must be a list of 32-byte hashes")
    return [hash32(item, what) for item in value]


def json_object(value: Any, what: str = "object") -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid_params(f"{what} must be an object")
    return value


CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "block": block,
    "bool": boolean,
    "hash32": hash32,
    "address": address,
    "data": data,
    "quantity": quantity,
    "call": call,
    "filter": log_filter,
    "percentiles": percentiles,
    "hashes": hashes,
    "object": json_object,
}


def check(method: str, params: Any) -> list[Any]:
    """Converted positional params of a known method; raises -32602 on any mismatch."""
    spec = method_specs()[method]
    types: list[str] = spec["params"]
    if params is None:
        params = []
    if not isinstance(params, list):
        raise invalid_params("this gateway takes positional (array) params")
    if len(params) > len(types):
        raise invalid_params(f"{method} takes at most {len(types)} params, got {len(params)}")
    if len(params) < spec["required"]:
        raise invalid_params(f"{method} needs {spec['required']} params, got {len(params)}")
    converted = [
        CHECKS[kind](value, f"param {i}")
        for i, (kind, value) in enumerate(zip(types, params, strict=False))
    ]
    for kind in types[len(params) :]:
        converted.append("latest" if kind == "block" else None)
    return converted
