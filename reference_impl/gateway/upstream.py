"""Where a network's calls go: the embedded chain, or any JSON-RPC URL.

Both run their blocking work in a worker thread so the event loop never waits on them (the
embedded chain in a thread of its own, with a bounded queue in front: a flood of EVM calls
neither takes the threads other surfaces use nor queues without end), and both
turn whatever goes wrong into an RpcError: clients of the gateway only ever see the standard
codes (and the -32000..-32099 server range), never an upstream's raw error or a 500.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from reference_impl.gateway.chain import EmbeddedChain
from reference_impl.gateway.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    LIMIT_EXCEEDED,
    METHOD_NOT_FOUND,
    SERVER_ERROR,
    RpcError,
)

_KEPT_CODES = {METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR}


class Upstream(Protocol):
    async def request(self, method: str, params: Any, deadline: float | None = None) -> Any: ...


class EmbeddedUpstream:
    """One worker thread per chain (its calls run one at a time under its lock anyway) and at
    most `max_pending` calls waiting for it; more are refused at once with -32005."""

    def __init__(self, chain: EmbeddedChain, max_pending: int = 64) -> None:
        self.chain = chain
        self.max_pending = max_pending
        self._pending = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evm")

    async def request(self, method: str, params: Any, deadline: float | None = None) -> Any:
        if self._pending >= self.max_pending:
            raise RpcError(LIMIT_EXCEEDED, "limit exceeded: too many calls waiting for the chain")
        if deadline is not None and time.monotonic() >= deadline:
            raise RpcError(LIMIT_EXCEEDED, "limit exceeded: the batch used its time budget")
        self._pending += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self._pool, self.chain.request, method, params, deadline
            )
        except RpcError:
            raise
        except Exception as exc:  # an eth-tester/py-evm surprise is ours, not the caller's
            raise RpcError(INTERNAL_ERROR, "internal error", type(exc).__name__) from None
        finally:
            self._pending -= 1


class HttpUpstream:
    """Forwards one call at a time with `requests`; the caller has already checked params."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self._ids = itertools.count(1)

    async def request(self, method: str, params: Any, deadline: float | None = None) -> Any:
        call_id = next(self._ids)
        body = {"jsonrpc": "2.0", "id": call_id, "method": method, "params": params or []}
        reply = await asyncio.to_thread(self._post, body)
        return normalise(reply, call_id)

    def _post(self, body: dict[str, Any]) -> Any:
        import requests

        try:
            resp = requests.post(self.url, json=body, timeout=self.timeout)
            return resp.json()
        except (requests.RequestException, ValueError) as exc:
            raise RpcError(INTERNAL_ERROR, "upstream unavailable", type(exc).__name__) from None


def normalise(reply: Any, call_id: int) -> Any:
    """The result of an upstream reply, or an RpcError with a code our clients may see."""
    if not isinstance(reply, dict) or reply.get("id") != call_id:
        raise RpcError(INTERNAL_ERROR, "upstream returned an invalid response")
    has_result, error = "result" in reply, reply.get("error")
    if error is None and has_result:
        return reply["result"]
    if not isinstance(error, dict) or has_result:
        raise RpcError(INTERNAL_ERROR, "upstream returned an invalid response")
    code, message, data = error.get("code"), error.get("message"), error.get("data")
    message = message if isinstance(message, str) and message else "upstream error"
    if not isinstance(code, int) or isinstance(code, bool):
        raise RpcError(INTERNAL_ERROR, message, data)
    if code in _KEPT_CODES or -32099 <= code <= -32000:
        raise RpcError(code, message, data)
    if code in (-32700, -32600):  # our forwarded request was valid: the upstream misbehaved
        raise RpcError(INTERNAL_ERROR, message, data)
    raise RpcError(SERVER_ERROR, message, data)  # e.g. 3 "execution reverted"
