"""Multipart uploads in progress: metadata in SQLite (so uploads survive a restart), parts as blobs.

Lives next to the object engine (same database, same blob store) but in its own tables, so the
object engine does not need to know about uploads. Completion joins the part files by streaming
them into a new blob: an object of 10,000 parts never passes through memory.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from reference_impl.storage.blobs import BlobInfo
from reference_impl.storage.engine import BucketGone, Store
from reference_impl.storage.full import StorageFull, is_full

SCHEMA = """
CREATE TABLE IF NOT EXISTS uploads (
    upload_id TEXT PRIMARY KEY, account TEXT NOT NULL, bucket TEXT NOT NULL, key TEXT NOT NULL,
    content_type TEXT NOT NULL, meta TEXT NOT NULL, created REAL NOT NULL);
CREATE INDEX IF NOT EXISTS uploads_by_bucket ON uploads (account, bucket, key, created);
CREATE TABLE IF NOT EXISTS parts (
    upload_id TEXT NOT NULL, number INTEGER NOT NULL, blob TEXT NOT NULL, size INTEGER NOT NULL,
    etag TEXT NOT NULL, modified REAL NOT NULL, PRIMARY KEY (upload_id, number));
"""


# uploads whose completion is running (either surface): a part, an abort or a second completion
# meanwhile cannot be serialised with it, which the spec wants reported as TooMuchConcurrency
COMPLETING: set[str] = set()


class UploadGone(Exception):
    """The upload ended (aborted, completed, its bucket deleted) while a part or join streamed."""


@dataclass(frozen=True)
class Upload:
    upload_id: str
    account: str
    bucket: str
    key: str
    content_type: str
    meta: dict[str, Any]
    created: float


@dataclass(frozen=True)
class Part:
    number: int
    blob: str
    size: int
    etag: str  # hex MD5, without quotes
    modified: float


class UploadStore:
    """Uploads of one `Store`; every method is one short transaction."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db: sqlite3.Connection = store.db
        self.db.executescript(SCHEMA)
        self.db.commit()

    def create(
        self, account: str, bucket: str, key: str, content_type: str, meta: dict[str, Any]
    ) -> Upload:
        """A new upload; BucketGone when the bucket does not exist (any more)."""
        created = self.store.clock.now(account, bucket)
        upload = Upload(uuid.uuid4().hex, account, bucket, key, content_type, meta, created)
        stored_meta = json.dumps(meta, allow_nan=False)
        with self.db:
            added = self.db.execute(
                "INSERT INTO uploads SELECT ?,?,?,?,?,?,? "
                "WHERE EXISTS (SELECT 1 FROM buckets WHERE account=? AND name=?)",
                (upload.upload_id, account, bucket, key, content_type, stored_meta,
                 upload.created, account, bucket),
            ).rowcount  # fmt: skip
        if added != 1:
            raise BucketGone(account, bucket)
        return upload

    def get(self, account: str, bucket: str, key: str, upload_id: str) -> Upload | None:
        row = self.db.execute(
            "SELECT upload_id, account, bucket, key, content_type, meta, created FROM uploads "
            "WHERE upload_id=? AND account=? AND bucket=? AND key=?",
            (upload_id, account, bucket, key),
        ).fetchone()
        return _upload(row) if row else None

    def list_uploads(self, account: str, bucket: str, prefix: str = "") -> list[Upload]:
        rows = self.db.execute(
            "SELECT upload_id, account, bucket, key, content_type, meta, created FROM uploads "
            "WHERE account=? AND bucket=? AND substr(key, 1, ?) = ? ORDER BY key, created",
            (account, bucket, len(prefix), prefix),
        ).fetchall()
        return [_upload(row) for row in rows]

    def uploads_after(
        self, account: str, bucket: str, prefix: str, key_marker: str, id_marker: str, most: int
    ) -> list[Upload]:
        """At most `most` uploads after the markers, in listing order (key, then initiation:
        its time, then the order of creation).

        Read by bounded queries, never the whole bucket: creating uploads costs a client one
        small request each, and a listing that read a million of them held every surface.
        The id marker is a position among its key's uploads; one the key does not hold falls
        back to comparing ids, as S3 documents.
        """
        columns = "upload_id, account, bucket, key, content_type, meta, created"
        base = (
            f"SELECT {columns} FROM uploads WHERE account=? AND bucket=? AND substr(key, 1, ?) = ?"
        )
        order = " ORDER BY key, created, rowid LIMIT ?"
        common: list[Any] = [account, bucket, len(prefix), prefix]
        found: list[Upload] = []
        if key_marker and id_marker:
            mark = self.db.execute(
                "SELECT created, rowid FROM uploads "
                "WHERE account=? AND bucket=? AND key=? AND upload_id=?",
                (account, bucket, key_marker, id_marker),
            ).fetchone()
            if mark is not None:
                same = " AND key = ? AND (created > ? OR (created = ? AND rowid > ?))"
                marks: list[Any] = [key_marker, mark[0], mark[0], mark[1]]
            else:
                same, marks = " AND key = ? AND upload_id > ?", [key_marker, id_marker]
            rows = self.db.execute(base + same + order, [*common, *marks, most]).fetchall()
            found = [_upload(row) for row in rows]
        later, after = (" AND key > ?", [key_marker]) if key_marker else ("", [])
        if len(found) < most:
            rows = self.db.execute(
                base + later + order, [*common, *after, most - len(found)]
            ).fetchall()
            found += [_upload(row) for row in rows]
        return found

    def uploads_page(
        self, account: str, bucket: str, prefix: str, after: int, most: int
    ) -> list[tuple[int, Upload]]:
        """At most `most` uploads under `prefix` stored after position `after` (their rowid),
        with their positions: a pass over every upload of a bucket reads it a page at a time
        (the lifecycle's aborts), whatever it removes meanwhile."""
        rows = self.db.execute(
            "SELECT rowid, upload_id, account, bucket, key, content_type, meta, created "
            "FROM uploads WHERE account=? AND bucket=? AND substr(key, 1, ?) = ? AND rowid > ? "
            "ORDER BY rowid LIMIT ?",
            (account, bucket, len(prefix), prefix, after, most),
        ).fetchall()
        return [(row[0], _upload(row[1:])) for row in rows]

    def put_part(self, upload_id: str, number: int, blob: BlobInfo) -> Part:
        """Record a written part, replacing (and removing) an earlier one of the same number.

        UploadGone (and the blob removed) when the upload ended while the part streamed.
        """
        if blob.inline is not None:  # parts are read back as files when the upload completes
            raise ValueError("a part must be written with write_blob(..., inline=False)")
        try:
            with self.db:
                owner = "SELECT account, bucket FROM uploads WHERE upload_id=?"
                found = self.db.execute(owner, (upload_id,)).fetchone()
                if found is None:
                    self.store.blobs.remove(blob.name)
                    raise UploadGone(upload_id)
                stamp = self.store.clock.now(*found)  # the part's bucket's clock
                part = Part(number, blob.name, blob.size, blob.md5_hex, stamp)
                old = self.db.execute(
                    "SELECT blob FROM parts WHERE upload_id=? AND number=?", (upload_id, number)
                ).fetchone()
                self.db.execute(
                    "INSERT OR REPLACE INTO parts VALUES (?,?,?,?,?,?)",
                    (upload_id, number, part.blob, part.size, part.etag, part.modified),
                )
        except sqlite3.Error as exc:  # a full disk: the transaction rolled back
            if not is_full(exc):
                raise
            self.store.blobs.remove(blob.name)
            raise StorageFull(str(exc)) from exc
        if old and old[0] != part.blob:
            self.store.retire(old[0])
        return part

    def parts(self, upload_id: str) -> list[Part]:
        rows = self.db.execute(
            "SELECT number, blob, size, etag, modified FROM parts WHERE upload_id=? "
            "ORDER BY number",
            (upload_id,),
        ).fetchall()
        return [Part(*row) for row in rows]

    def delete(self, upload_id: str, keep_blobs: frozenset[str] = frozenset()) -> bool:
        """Forget the upload and remove its part blobs; False when it was not there."""
        with self.db:
            found = self.db.execute("DELETE FROM uploads WHERE upload_id=?", (upload_id,)).rowcount
            blobs = [
                row[0]
                for row in self.db.execute(
                    "SELECT blob FROM parts WHERE upload_id=?", (upload_id,)
                ).fetchall()
            ]
            self.db.execute("DELETE FROM parts WHERE upload_id=?", (upload_id,))
        for name in blobs:
            if name not in keep_blobs:
                self.store.retire(name)
        return found == 1

    async def join(self, parts: list[Part]) -> BlobInfo:
        """Stream the parts, in the given order, into one new blob.

        UploadGone when a part's file went away meanwhile (the upload aborted with its bucket).
        """
        blobs = self.store.blobs

        async def chunks() -> AsyncIterator[bytes]:
            for part in parts:
                for chunk in blobs.read(part.blob):
                    yield chunk

        try:
            info: BlobInfo = await self.store.write_blob(chunks(), inline=False)
        except FileNotFoundError:
            raise UploadGone() from None
        return info


def multipart_etag(parts: list[Part]) -> str:
    """`<md5 of the concatenated binary part MD5s>-N`, as S3 publishes it."""
    digest = hashlib.md5(b"".join(bytes.fromhex(p.etag) for p in parts)).hexdigest()
    return f"{digest}-{len(parts)}"


_STORES: dict[int, UploadStore] = {}


def uploads_of(store: Store) -> UploadStore:
    """The upload store of an object store, created (tables included) on first use."""
    found = _STORES.get(id(store))
    if found is None or found.store is not store:
        found = _STORES[id(store)] = UploadStore(store)
    return found


def _upload(row: tuple[Any, ...]) -> Upload:
    upload_id, account, bucket, key, ctype, meta, created = row
    return Upload(upload_id, account, bucket, key, ctype, json.loads(meta), created)
