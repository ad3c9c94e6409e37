"""Group commit: no reply is sent before the database changes it reports are on disk.

SQLite runs in WAL mode with `synchronous=NORMAL`: a commit appends its frames to the WAL in
the page cache and returns, so it survives a crash of the process but not of the machine.
`synchronous=FULL` would fsync the WAL inside every commit, on the event loop, one commit at
a time. Instead, before a reply leaves (`reference_impl/durable_replies.py`), `WalSyncer`
makes sure an fsync of the WAL file that started after the last change has completed; it runs
on a pool thread, and every reply waiting at the same time shares it. Replies of requests that
changed nothing (the connection's `total_changes` did not move) never wait.

Recovery replays every WAL frame up to the last commit marker on disk, so a reply sent after
the barrier names only changes that survive a power loss.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_SYNC_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wal-sync")


class WalSyncer:
    """Barrier for one connection's changes; call `barrier()` from the connection's loop."""

    def __init__(self, db: sqlite3.Connection, wal_path: Path) -> None:
        self._db = db
        self._wal_path = wal_path
        self._fd: int | None = None
        self._synced = db.total_changes  # changes covered by the last completed fsync
        self._running: asyncio.Future[None] | None = None  # the fsync in progress
        self.fsyncs = 0  # for tests and diagnostics

    @property
    def synced(self) -> int:
        """The connection's `total_changes` the last completed fsync covers."""
        return self._synced

    async def barrier(self) -> None:
        """Return once every change made so far on the connection is on disk."""
        target = self._db.total_changes
        while self._synced < target:
            if self._running is None or self._running.done():
                self._running = asyncio.ensure_future(self._sync_covering(self._db.total_changes))
            await asyncio.shield(self._running)  # one waiter's cancellation stops no fsync

    async def _sync_covering(self, covers: int) -> None:
        """One fsync; marks `covers` synced before waiters resume (they re-check it)."""
        await asyncio.get_running_loop().run_in_executor(_SYNC_POOL, self._sync)
        self._synced = max(self._synced, covers)

    def _sync(self) -> None:
        if self._fd is None:  # the WAL exists from the first commit on; kept open from then
            self._fd = os.open(self._wal_path, os.O_RDONLY)
        os.fsync(self._fd)  # flushes the file, whichever descriptor wrote it
        self.fsyncs += 1

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
