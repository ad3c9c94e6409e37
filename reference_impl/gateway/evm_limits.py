"""Bounded EVM work for eth_call / eth_estimateGas: a gas cap and a wall-clock deadline.

Anyone may call these methods, and py-evm runs a block's 30M gas of a looping contract in
seconds while the chain's lock is held. Like geth (`--rpc.gascap`, default 50,000,000 gas,
go-ethereum PR 19401; `--rpc.evmtimeout`, default 5 s) the gateway lowers a larger `gas` to the
cap and aborts an execution past its deadline.

py-evm has no timeout of its own, so the deadline is checked where every opcode passes: the
gas meter's `consume_gas`. The check is armed per thread (only the chain's worker thread, only
during one call); past the deadline it raises `ExecutionTimeout`, which is no VM error, so py-evm
does not swallow it as a failed frame: it unwinds the whole call. eth_call and eth_estimateGas
execute on a throwaway state (a VM built for the call, reverted to a snapshot), so nothing of an
aborted call is kept.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_armed = threading.local()
_installed = False
_install_lock = threading.Lock()


class ExecutionTimeout(Exception):
    """The call ran past its deadline and was aborted."""


def install() -> None:
    """Wrap py-evm's gas meter once per process (a no-op for threads not armed)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        from eth.vm.gas_meter import GasMeter

        original: Callable[..., None] = GasMeter.consume_gas

        def consume_gas(self: Any, amount: int, reason: str) -> None:
            deadline = getattr(_armed, "deadline", None)
            if deadline is not None and time.monotonic() > deadline:
                raise ExecutionTimeout(reason)
            original(self, amount, reason)

        GasMeter.consume_gas = consume_gas  # type: ignore[method-assign]
        _installed = True


@contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Arm this thread's deadline (`time.monotonic()` value) for the block; None: no limit."""
    install()
    _armed.deadline = at
    try:
        yield
    finally:
        _armed.deadline = None


def capped_gas(call: dict[str, Any], cap: int) -> dict[str, Any]:
    """The call with `gas` lowered to `cap` (geth: "caller gas above allowance, capping")."""
    if cap > 0 and int(call.get("gas", 0)) > cap:
        return {**call, "gas": cap}
    return call
