"""Ordered work on a shared thread pool: the hash and write stages of one large upload.

Why: an upload's batches must be hashed, and written, in order, but hashing and writing need
not wait for each other. With one job per batch that does both, every batch costs the slower
of the two plus a thread hand-off, and on a VM whose disk swings between ~450 and ~1,600 MB/s
the fast stage idles while the slow one catches up. Two ordered stages let each run ahead of
the other by a bounded number of batches (the caller bounds it).

A stage never blocks a pool thread while waiting for its turn (a job waiting on its
predecessor could otherwise fill the pool with waiters whose predecessors are still queued):
it keeps its own queue and runs at most one drain job on the pool at a time.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class SerialStage:
    """Runs submitted calls one at a time, in submission order, on a shared pool."""

    def __init__(self, pool: ThreadPoolExecutor) -> None:
        self._pool = pool
        self._lock = threading.Lock()
        self._queue: deque[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]] = deque()
        self._draining = False

    def submit(self, func: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            self._queue.append((func, args, future))
            start, self._draining = not self._draining, True
        if start:
            self._pool.submit(self._drain)
        return future

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._draining = False
                    return
                func, args, future = self._queue.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = func(*args)
            except BaseException as exc:  # handed to whoever awaits the future
                future.set_exception(exc)
            else:
                future.set_result(result)
