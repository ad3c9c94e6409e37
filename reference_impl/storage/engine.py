"""The storage engine: SQLite (WAL) for metadata and small bodies, blob files for the rest.

Buckets live in a namespace per account. Handlers call these methods from the event loop;
each is one short SQLite transaction. A body of at most `INLINE_MAX` bytes is stored in its
object's row (docs/reference-choices.md, "small objects inline"): one WAL append instead of a file
create, fsync, rename and later unlink, and the body and its metadata commit atomically.
Larger bodies stream to blob files and never pass through SQLite.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference_impl.storage.audit_log import AuditTable
from reference_impl.storage.blobs import BlobInfo, BlobStore, inline_chunks
from reference_impl.storage.checkpointer import BACKSTOP_PAGES, Checkpointer
from reference_impl.storage.clock import Clock
from reference_impl.storage.durability import WalSyncer
from reference_impl.storage.full import StorageFull, is_full
from reference_impl.storage.watches import KeyWatches

INLINE_MAX = 64 * 1024  # bodies up to this size live in their object's row
_OBJECT_COLUMNS = "key, blob, size, etag, content_type, modified, md5, sha256, sha1, meta"

SCHEMA = """
CREATE TABLE IF NOT EXISTS buckets (
    account TEXT NOT NULL, name TEXT NOT NULL, location TEXT NOT NULL, created REAL NOT NULL,
    gen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (account, name));
CREATE TABLE IF NOT EXISTS objects (
    account TEXT NOT NULL, bucket TEXT NOT NULL, key TEXT NOT NULL,
    blob TEXT NOT NULL, size INTEGER NOT NULL, etag TEXT NOT NULL,
    md5 TEXT, sha256 TEXT, sha1 TEXT, content_type TEXT NOT NULL, meta TEXT NOT NULL,
    modified REAL NOT NULL, data BLOB,
    PRIMARY KEY (account, bucket, key));
CREATE TABLE IF NOT EXISTS bucket_configs (
    account TEXT NOT NULL, bucket TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (account, bucket, kind));
"""


class BucketGone(Exception):
    """The bucket a write was meant for was deleted (or deleted and recreated) meanwhile.

    Raised by `put_object` (and the upload store) instead of publishing: the written blob is
    removed, no row is added. Surfaces answer it as NoSuchBucket.
    """

    def __init__(self, account: str, bucket: str) -> None:
        super().__init__(f"bucket {bucket!r} of {account} no longer exists")
        self.account, self.bucket = account, bucket


# A write condition evaluated when the write publishes: called with the object then under the
# key (None when absent), inside the transaction that publishes; raising refuses the write.
PublishCheck = Callable[["ObjectRecord | None"], None]


@dataclass(frozen=True)
class Bucket:
    account: str
    name: str
    location: str
    created: float


@dataclass(frozen=True)
class ObjectRecord:
    key: str
    blob: str
    size: int
    etag: str  # without quotes
    content_type: str
    modified: float
    md5: str | None = None
    sha256: str | None = None
    sha1: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # user metadata and HTTP metadata
    # an inline body: loaded by get_object; listings only know that it is inline
    data: bytes | None = field(default=None, repr=False, compare=False)
    inline: bool = False


class Store:
    """Everything the reference persists under `root`; survives restarts on the same root."""

    def __init__(
        self, root: Path, clock: Clock | None = None, *, defer_removals: bool = False
    ) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        # `--durable`: files a commit dropped wait for the barrier covering it (`retire`)
        self.defer_removals = defer_removals
        self._retired: list[tuple[int, str]] = []  # (total_changes after the drop, blob)
        # stamps every write on its bucket's clock (storage/clock.py); in memory only
        self.clock = clock or Clock()
        self.blobs = BlobStore(root)
        # bumped by every change of a bucket configuration: caches of what is derived from one
        # (compiled CORS rules) know they are current without reading the configuration again
        self.config_generation = 0
        self.db = sqlite3.connect(root / "meta.sqlite3", check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        # storage/checkpointer.py checkpoints; this only bounds the WAL under endless writes
        self.db.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")
        self.db.executescript(SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(objects)")}
        if "data" not in columns:  # a data dir written before bodies could be inline
            self.db.execute("ALTER TABLE objects ADD COLUMN data BLOB")
        if "gen" not in {row[1] for row in self.db.execute("PRAGMA table_info(buckets)")}:
            self.db.execute("ALTER TABLE buckets ADD COLUMN gen INTEGER NOT NULL DEFAULT 0")
        self.db.commit()
        self.audit = AuditTable(self.db)  # the audit log's entries (services/audit.py)
        # Bucket generations: every bucket created gets the current epoch, which then grows;
        # every blob write remembers the epoch it started in. A blob may only be published
        # into a bucket created before its write began, so a PUT that was streaming while its
        # bucket was deleted (and perhaps recreated) can never land in it
        # (docs/reference-choices.md).
        self.epoch = 1 + self.db.execute("SELECT coalesce(max(gen), 0) FROM buckets").fetchone()[0]
        self._remove_unreferenced_blobs()
        self.watches = KeyWatches()  # keys a migration fetch waits on (storage/watches.py)
        self.syncer = WalSyncer(self.db, root / "meta.sqlite3-wal")
        self.checkpointer = Checkpointer(root / "meta.sqlite3")

    def _remove_unreferenced_blobs(self) -> None:
        """A kill between a blob's rename and its metadata commit leaves a file no row names.

        It was never acknowledged (the reply follows the commit), so at startup, before any
        request, such files are garbage: remove them rather than leak disk for ever.
        """
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master")}
        referenced = {row[0] for row in self.db.execute("SELECT blob FROM objects")}
        if "parts" in tables:
            referenced |= {row[0] for row in self.db.execute("SELECT blob FROM parts")}
        for path in self.blobs.root.rglob("*"):
            if path.is_file() and path.name not in referenced:
                path.unlink(missing_ok=True)

    def close(self) -> None:
        self.checkpointer.close()
        self.syncer.close()
        self.db.close()

    async def durable(self) -> None:
        """Return once every change committed so far survives a power loss (group commit)."""
        await self.syncer.barrier()
        if self._retired:
            synced = self.syncer.synced
            still = [entry for entry in self._retired if entry[0] > synced]
            for _, name in (entry for entry in self._retired if entry[0] <= synced):
                self.blobs.remove(name)
            self._retired = still

    def retire(self, name: str) -> None:
        """Remove the file of a body a just-committed change no longer names.

        With deferred removals (`--durable`) the commit is in the page cache until the next
        barrier; unlinking now could outlive the commit in a machine crash and leave the old
        row naming a missing file. So the file waits for a barrier covering the commit; a crash
        before that leaves it unreferenced, and startup removes it.
        """
        if self.defer_removals:
            self._retired.append((self.db.total_changes, name))
        else:
            self.blobs.remove(name)

    # buckets
    def create_bucket(self, account: str, name: str, location: str) -> bool:
        """Create the bucket; False when the account already has it."""
        with self.db:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO buckets (account, name, location, created, gen) "
                "VALUES (?, ?, ?, ?, ?)",
                (account, name, location, self.clock.now(), self.epoch),
            )
        if cur.rowcount != 1:
            return False
        self.epoch += 1
        self.clock.forget(account, name)  # a new bucket starts on time
        return True

    def get_bucket(self, account: str, name: str) -> Bucket | None:
        row = self.db.execute(
            "SELECT account, name, location, created FROM buckets WHERE account=? AND name=?",
            (account, name),
        ).fetchone()
        return Bucket(*row) if row else None

    def bucket_generation(self, account: str, name: str) -> int | None:
        """Which creation of this bucket name exists now (None: none): a bucket deleted and
        created again under the same name has a greater generation."""
        row = self.db.execute(
            "SELECT gen FROM buckets WHERE account=? AND name=?", (account, name)
        ).fetchone()
        return int(row[0]) if row else None

    def list_buckets(self, account: str) -> list[Bucket]:
        rows = self.db.execute(
            "SELECT account, name, location, created FROM buckets WHERE account=? ORDER BY name",
            (account,),
        ).fetchall()
        return [Bucket(*row) for row in rows]

    def bucket_page(
        self, account: str, after: str | None, contains: str, most: int
    ) -> list[Bucket]:
        """At most `most` buckets in name order after `after` whose names contain `contains`,
        in one query: the rows a page skips are compared inside SQLite, never decoded."""
        rows = self.db.execute(
            "SELECT account, name, location, created FROM buckets WHERE account=? AND name > ? "
            "AND instr(name, ?) > 0 ORDER BY name LIMIT ?",
            (account, after or "", contains, most),
        ).fetchall()
        return [Bucket(*row) for row in rows]

    def bucket_is_empty(self, account: str, name: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM objects WHERE account=? AND bucket=? LIMIT 1", (account, name)
        ).fetchone()
        return row is None

    def delete_bucket(self, account: str, name: str, keep_uploads: bool = False) -> None:
        """Delete the bucket with everything still attached to it, in one transaction.

        Callers refuse a bucket that holds objects; rows left anyway (a deviating profile) go
        with it, and so do multipart uploads in progress (aborted, as S3 does:
        docs/reference-choices.md), so that a bucket recreated under the same name never sees
        any of them. `keep_uploads`: the deviation that forgets them (deviations.yaml,
        delete_bucket_keeps_uploads).
        """
        where = (account, name)
        with self.db:
            self.db.execute("DELETE FROM buckets WHERE account=? AND name=?", where)
            self.db.execute("DELETE FROM bucket_configs WHERE account=? AND bucket=?", where)
            self.config_generation += 1
            files = [
                row[0]
                for row in self.db.execute(
                    "SELECT blob FROM objects WHERE account=? AND bucket=? AND data IS NULL", where
                )
            ]
            self.db.execute("DELETE FROM objects WHERE account=? AND bucket=?", where)
            parts = self.db.execute("SELECT 1 FROM sqlite_master WHERE name='parts'").fetchone()
            if parts and not keep_uploads:
                uploads = "SELECT upload_id FROM uploads WHERE account=? AND bucket=?"
                files += [
                    row[0]
                    for row in self.db.execute(
                        f"SELECT blob FROM parts WHERE upload_id IN ({uploads})", where
                    )
                ]
                self.db.execute(f"DELETE FROM parts WHERE upload_id IN ({uploads})", where)
                self.db.execute("DELETE FROM uploads WHERE account=? AND bucket=?", where)
        self.clock.forget(account, name)
        self.watches.bucket_changed(account, name)
        for blob in files:
            self.retire(blob)

    # bucket sub-resource configurations (CORS, encryption, ...), stored as JSON by kind
    def get_bucket_config(self, account: str, bucket: str, kind: str) -> Any:
        row = self.db.execute(
            "SELECT body FROM bucket_configs WHERE account=? AND bucket=? AND kind=?",
            (account, bucket, kind),
        ).fetchone()
        return json.loads(row[0]) if row else None

    def get_bucket_config_text(self, account: str, bucket: str, kind: str) -> str | None:
        """The stored JSON text itself (callers that cache what they derive from it)."""
        row = self.db.execute(
            "SELECT body FROM bucket_configs WHERE account=? AND bucket=? AND kind=?",
            (account, bucket, kind),
        ).fetchone()
        return str(row[0]) if row else None

    def bucket_configs(
        self, kind: str, only: tuple[str, str] | None = None
    ) -> list[tuple[str, str, str]]:
        """(account, bucket, JSON text) of every bucket's configuration of `kind` (or one's)."""
        sql = "SELECT account, bucket, body FROM bucket_configs WHERE kind=?"
        args: tuple[str, ...] = (kind,)
        if only is not None:
            sql, args = sql + " AND account=? AND bucket=?", (kind, *only)
        return self.db.execute(sql, args).fetchall()

    def put_bucket_config(self, account: str, bucket: str, kind: str, body: Any) -> None:
        """Store the configuration; BucketGone when the bucket does not exist (any more).

        Checked in the same transaction: a PUT that read its body while DeleteBucket ran must
        not leave a configuration that a bucket created later under the name would inherit.
        """
        with self.db:
            added = self.db.execute(
                "INSERT OR REPLACE INTO bucket_configs SELECT ?, ?, ?, ? "
                "WHERE EXISTS (SELECT 1 FROM buckets WHERE account=? AND name=?)",
                (account, bucket, kind, json.dumps(body, allow_nan=False), account, bucket),
            ).rowcount
        if added != 1:
            raise BucketGone(account, bucket)
        self.config_generation += 1

    def delete_bucket_config(self, account: str, bucket: str, kind: str) -> None:
        with self.db:
            self.db.execute(
                "DELETE FROM bucket_configs WHERE account=? AND bucket=? AND kind=?",
                (account, bucket, kind),
            )
        self.config_generation += 1

    # objects
    async def write_blob(
        self,
        chunks: AsyncIterator[bytes],
        expected_sha256: str | None = None,
        *,
        inline: bool = True,
    ) -> BlobInfo:
        """Stream a body; `inline=False` for bodies that are not published by put_object (parts).

        The blob remembers the bucket epoch its write began in (see `put_object`).
        """
        try:
            return await self.blobs.write(
                chunks, expected_sha256, inline_max=INLINE_MAX * inline, epoch=self.epoch
            )
        except OSError as exc:  # the temp file is already removed (storage/fastio.py)
            if is_full(exc):
                raise StorageFull(str(exc)) from exc
            raise

    def read_blob(
        self, blob: BlobInfo, start: int = 0, length: int | None = None
    ) -> Iterator[bytes]:
        """A written blob's bytes before it is published (checksums, content sniffing)."""
        return self.blobs.read_info(blob, start, length)

    def put_object(
        self,
        account: str,
        bucket: str,
        key: str,
        blob: BlobInfo,
        content_type: str,
        meta: dict[str, Any],
        etag: str | None = None,
        check: PublishCheck | None = None,
        bucket_unchecked: bool = False,
    ) -> ObjectRecord:
        """Publish a written blob under the key, replacing (and removing) any previous one.

        Raises BucketGone (and removes the blob) when the bucket is gone or was created after
        the blob's write began: checked in the same transaction as the insert, and handlers
        run on one event loop, so a bucket delete and this commit never interleave (unless
        `bucket_unchecked`, the deviation put_publish_unchecked of deviations.yaml). `check`
        (a write's If-* conditions) is called with the object under the key at that moment,
        in the same transaction: whatever it raises refuses the write and removes the blob, so
        of two create-if-absent writes exactly one publishes (docs/reference-choices.md).
        """
        record = ObjectRecord(
            key=key,
            blob=blob.name,
            size=blob.size,
            etag=etag or blob.md5_hex,
            content_type=content_type,
            modified=self.clock.now(account, bucket),
            md5=blob.md5_hex,
            sha256=blob.sha256_hex,
            sha1=blob.sha1_hex,
            meta=meta,
            data=blob.inline,
            inline=blob.inline is not None,
        )
        try:
            old = self._commit_object(account, bucket, key, blob, record, check, bucket_unchecked)
        except sqlite3.Error as exc:  # a full disk: the transaction rolled back, drop the blob
            if not is_full(exc):
                raise
            if blob.inline is None:
                self.blobs.remove(blob.name)
            raise StorageFull(str(exc)) from exc
        if old and old[1] and old[0] != record.blob:  # the replaced body was a file
            self.retire(old[0])
        return record

    def _commit_object(
        self,
        account: str,
        bucket: str,
        key: str,
        blob: BlobInfo,
        record: ObjectRecord,
        check: PublishCheck | None,
        bucket_unchecked: bool,
    ) -> Any:
        """The row of `put_object`, in one transaction; the replaced row's (blob, is a file)."""
        with self.db:
            gen = self.db.execute(
                "SELECT gen FROM buckets WHERE account=? AND name=?", (account, bucket)
            ).fetchone()
            if (gen is None or gen[0] >= blob.epoch) and not bucket_unchecked:
                if blob.inline is None:
                    self.blobs.remove(blob.name)
                raise BucketGone(account, bucket)
            if check is not None:
                try:
                    check(self._current(account, bucket, key))
                except BaseException:
                    if blob.inline is None:
                        self.blobs.remove(blob.name)
                    raise
            self.watches.key_changed(account, bucket, key)  # before the commit: conservative
            old = self.db.execute(
                "SELECT blob, data IS NULL FROM objects WHERE account=? AND bucket=? AND key=?",
                (account, bucket, key),
            ).fetchone()
            self.db.execute(
                "INSERT OR REPLACE INTO objects (account, bucket, key, blob, size, etag, md5, "
                "sha256, sha1, content_type, meta, modified, data) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    account,
                    bucket,
                    key,
                    record.blob,
                    record.size,
                    record.etag,
                    record.md5,
                    record.sha256,
                    record.sha1,
                    record.content_type,
                    json.dumps(record.meta, allow_nan=False),
                    record.modified,
                    blob.inline,
                ),
            )
        return old

    def _current(self, account: str, bucket: str, key: str) -> ObjectRecord | None:
        """The object under the key without its inline body (what a write condition reads)."""
        row = self.db.execute(
            f"SELECT {_OBJECT_COLUMNS}, NULL, data IS NOT NULL FROM objects "
            "WHERE account=? AND bucket=? AND key=?",
            (account, bucket, key),
        ).fetchone()
        return _record(row) if row else None

    def get_object(self, account: str, bucket: str, key: str) -> ObjectRecord | None:
        row = self.db.execute(
            f"SELECT {_OBJECT_COLUMNS}, data FROM objects WHERE account=? AND bucket=? AND key=?",
            (account, bucket, key),
        ).fetchone()
        return _record(row) if row else None

    def read_object(
        self, record: ObjectRecord, start: int = 0, length: int | None = None
    ) -> Iterator[bytes]:
        if record.data is not None:
            return inline_chunks(record.data, start, length)
        if record.inline:
            raise RuntimeError("a listed record has no body: read it through get_object")
        return self.blobs.read(record.blob, start, length)

    def delete_object(self, account: str, bucket: str, key: str) -> bool:
        """Remove the key's object; False when there was none (a fetch under way still hears
        of the delete: it must not bring the key back, storage/watches.py)."""
        self.watches.key_changed(account, bucket, key)
        with self.db:
            old = self.db.execute(
                "SELECT blob, data IS NULL FROM objects WHERE account=? AND bucket=? AND key=?",
                (account, bucket, key),
            ).fetchone()
            if old is None:
                return False
            self.db.execute(
                "DELETE FROM objects WHERE account=? AND bucket=? AND key=?",
                (account, bucket, key),
            )
        if old[1]:
            self.retire(old[0])
        return True

    def iter_keys(
        self,
        account: str,
        bucket: str,
        prefix: str,
        after: str | None,
        start_at: str | None = None,
        batch: int = 500,
        with_meta: bool = True,  # False: `meta` left empty (listings: decoding it cost most)
    ) -> Iterator[ObjectRecord]:
        """Objects with the prefix, keys after `after` (and from `start_at`), UTF-8 byte order."""
        cursor = after
        while True:
            sql = (
                f"SELECT {_OBJECT_COLUMNS}, NULL, data IS NOT NULL "
                "FROM objects WHERE account=? AND bucket=? AND substr(key, 1, ?) = ?"
            )
            args: list[Any] = [account, bucket, len(prefix), prefix]
            if cursor is not None:
                sql += " AND key > ?"
                args.append(cursor)
            if start_at is not None:
                sql += " AND key >= ?"
                args.append(start_at)
            sql += " ORDER BY key LIMIT ?"
            args.append(batch)
            rows = self.db.execute(sql, args).fetchall()
            for row in rows:
                yield _record(row, with_meta)
            if len(rows) < batch:
                return
            cursor = rows[-1][0]


def _record(row: tuple[Any, ...], with_meta: bool = True) -> ObjectRecord:
    """A row of _OBJECT_COLUMNS, then the inline body (or NULL), then whether it is inline."""
    key, blob, size, etag, ctype, modified, md5, sha256, sha1, meta, data, *listed = row
    inline = bool(listed[0]) if listed else data is not None
    decoded = json.loads(meta) if with_meta else {}
    return ObjectRecord(
        key, blob, size, etag, ctype, modified, md5, sha256, sha1, decoded, data, inline
    )
