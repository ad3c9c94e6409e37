"""Bounded worker pools: work that must not run on the event loop, kept apart by kind.

Every surface shares one event loop, so CPU-heavy or blocking work on it stalls every account
(docs/architecture.md, "Bounded work per request"). Each kind of such work gets its own small
pool here instead of the loop's default executor: a slow migration source or a large checksum
then waits behind its own kind only, and the default executor (the gateway's chain calls) stays
free. The pools are created on first use and sized for a 2-core machine.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

SIZES = {
    "migration": 8,  # fetches from a migration source: network-bound, each under a deadline
    "hash": 2,  # checksums of stored blobs (hashlib and zlib release the GIL)
    "patterns": 1,  # compiling and matching large CORS configurations
    "scan": 1,  # lifecycle passes over every object of a bucket
    "compress": 1,  # log push batches (gzip of up to log_pending_max_bytes per job)
    "parse": 1,  # JSON bodies and CORS documents above 64 KiB (Python per number / origin)
    "decode": 1,  # base64 object bodies of the bindings bridge, in 1 MiB pieces
    "render": 1,  # XML replies built from large stored configurations (GetBucketCors)
}
_POOLS: dict[str, ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def pool(kind: str) -> ThreadPoolExecutor:
    """The pool of one kind of work (KeyError for an unknown kind: a typo is a bug)."""
    with _LOCK:
        found = _POOLS.get(kind)
        if found is None:
            found = ThreadPoolExecutor(SIZES[kind], thread_name_prefix=f"offload-{kind}")
            _POOLS[kind] = found
        return found


async def run(kind: str, fn: Callable[..., T], *args: object, timeout: float | None = None) -> T:
    """`fn(*args)` on the pool of `kind`; TimeoutError after `timeout` seconds (the thread
    finishes on its own; a job still queued is cancelled)."""
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(pool(kind), functools.partial(fn, *args))
    if timeout is None:
        return await future
    return await asyncio.wait_for(future, timeout)
