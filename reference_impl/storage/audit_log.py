"""The audit log's table in the store's SQLite database: append an entry, read a page.

The storage half of the audit log (reference_impl/services/audit.py decides what is recorded
and how a page is shown); entries share the database, so they survive restarts with the rest.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, account TEXT NOT NULL, bucket TEXT NOT NULL,
    time REAL NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL, change TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS audit_by_bucket ON audit_log (account, bucket, id);
"""
Row = tuple[int, str, float, str, str, str]  # id, bucket, time, actor, action, change (JSON)


class AuditTable:
    """The `audit_log` table; made on first use, as before any entry is written or read."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._ready = False

    def _ensure(self) -> sqlite3.Connection:
        if not self._ready:
            self.db.executescript(SCHEMA)
            self.db.commit()
            self._ready = True
        return self.db

    def append(
        self, account: str, bucket: str, time: float, actor: str, action: str, change: str
    ) -> None:
        db = self._ensure()
        with db:
            db.execute(
                "INSERT INTO audit_log (account, bucket, time, actor, action, change) "
                "VALUES (?,?,?,?,?,?)",
                (account, bucket, time, actor, action, change),
            )

    def rows(self, account: str, bucket: str | None, after_id: int, limit: int) -> Iterator[Row]:
        """The account's entries (of one bucket when given) after `after_id`, oldest first."""
        sql = (
            "SELECT id, bucket, time, actor, action, change FROM audit_log WHERE account=? AND id>?"
        )
        args: list[Any] = [account, after_id]
        if bucket:
            sql += " AND bucket=?"
            args.append(bucket)
        sql += " ORDER BY id LIMIT ?"
        args.append(limit)
        yield from self._ensure().execute(sql, args)
