"""eth_feeHistory over the embedded chain's blocks (execution-apis `eth_feeHistory`).

eth-tester's own fee history leaves out the next block's base fee and weights no rewards, so the
answer is computed here from the blocks and receipts: base fees (plus the one after the newest
block, by EIP-1559), gas used ratios, and per requested percentile the effective priority fee
below which that share of the block's gas was paid (transactions sorted by tip, gas-weighted).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_BLOCKS = 1024
ELASTICITY = 2
BASE_FEE_CHANGE_DENOMINATOR = 8


def next_base_fee(base: int, gas_used: int, gas_limit: int) -> int:
    """EIP-1559: the base fee of the block after one with this base fee and gas use."""
    target = gas_limit // ELASTICITY
    if target == 0 or gas_used == target:
        return base
    if gas_used > target:
        return base + max(1, base * (gas_used - target) // target // BASE_FEE_CHANGE_DENOMINATOR)
    return max(0, base - base * (target - gas_used) // target // BASE_FEE_CHANGE_DENOMINATOR)


def effective_tip(tx: dict[str, Any], base: int) -> int:
    if tx.get("max_fee_per_gas") is not None:
        cap = int(tx["max_fee_per_gas"]) - base
        return max(0, min(int(tx.get("max_priority_fee_per_gas") or 0), cap))
    return max(0, int(tx.get("gas_price") or 0) - base)


def rewards(tips: list[tuple[int, int]], percentiles: list[float], gas_used: int) -> list[int]:
    """Per percentile, the tip at which the cumulative gas (sorted by tip) reaches that share."""
    if not tips or gas_used == 0:
        return [0 for _ in percentiles]
    ordered = sorted(tips)
    out = []
    for pct in percentiles:
        threshold = gas_used * pct / 100
        total = 0
        chosen = ordered[-1][0]
        for tip, gas in ordered:
            total += gas
            if total >= threshold:
                chosen = tip
                break
        out.append(chosen)
    return out


def fee_history(
    block_at: Callable[[int], dict[str, Any]],
    receipt_gas: Callable[[Any], int],
    newest: int,
    count: int,
    percentiles: list[float],
    qty: Callable[[int], str],
) -> dict[str, Any]:
    """The eth_feeHistory result for `count` blocks ending at block number `newest`."""
    count = max(0, min(count, MAX_BLOCKS, newest + 1))
    oldest = newest - count + 1
    base_fees: list[str] = []
    ratios: list[float] = []
    reward: list[list[str]] = []
    last: dict[str, Any] | None = None
    for number in range(oldest, newest + 1):
        block = block_at(number)
        base = int(block.get("base_fee_per_gas") or 0)
        used, limit = int(block["gas_used"]), int(block["gas_limit"])
        base_fees.append(qty(base))
        ratios.append(used / limit if limit else 0.0)
        if percentiles:
            tips = [
                (effective_tip(tx, base), receipt_gas(tx["hash"])) for tx in block["transactions"]
            ]
            reward.append([qty(r) for r in rewards(tips, percentiles, used)])
        last = block
    if last is not None:
        base = int(last.get("base_fee_per_gas") or 0)
        base_fees.append(qty(next_base_fee(base, int(last["gas_used"]), int(last["gas_limit"]))))
    result: dict[str, Any] = {
        "oldestBlock": qty(oldest if count else newest),
        "baseFeePerGas": base_fees,
        "gasUsedRatio": ratios,
    }
    if percentiles:
        result["reward"] = reward
    return result
