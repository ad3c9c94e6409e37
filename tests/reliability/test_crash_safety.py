"""Crash safety: SIGKILL the reference during concurrent uploads, restart it, check the data.

A reference that loses an acknowledged object, shows a half-written one or forgets an upload in
progress would make every client that trusts its answers wrong after a crash; the storage engine
promises fsync + rename + a SQLite commit before the acknowledgement, and this holds it to that.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from reliability.refproc import RefProcess

pytestmark = pytest.mark.slow
WRITERS = 12
RUN_BEFORE_KILL_S = 1.5
PART_BYTES = 64 * 1024  # with multipart_min_part_bytes lowered, multipart stays cheap
CHEAP_PARTS = ("--profile", f"multipart_min_part_bytes={PART_BYTES}")


@dataclass
class Ledger:
    """What the writers sent and what the reference acknowledged, by key."""

    sent: dict[str, bytes] = field(default_factory=dict)
    acked: dict[str, str] = field(default_factory=dict)  # key -> ETag as acknowledged
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, key: str, body: bytes) -> None:
        with self.lock:
            self.sent[key] = body

    def ack(self, key: str, etag: str) -> None:
        with self.lock:
            self.acked[key] = etag


def _body(seed: str, size: int) -> bytes:
    block = hashlib.sha256(seed.encode()).digest()
    return (block * (size // len(block) + 1))[:size]


def _writer(
    ref: RefProcess, bucket: str, index: int, ledger: Ledger, stop: threading.Event
) -> None:
    """Single PUTs on even writers, multipart uploads on odd ones, until the crash."""
    client = ref.boto()
    n = 0
    while not stop.is_set():
        key = f"w{index}/obj-{n}"
        n += 1
        try:
            if index % 2 == 0:
                body = _body(key, 1024 + (n * 7919) % (256 * 1024))
                ledger.send(key, body)
                reply = client.put_object(Bucket=bucket, Key=key, Body=body)
            else:
                body = _body(key, PART_BYTES * 2 + n)
                ledger.send(key, body)
                reply = _multipart(client, bucket, key, body)
        except Exception:  # the crash: connection refused or reset, nothing acknowledged
            return
        ledger.ack(key, reply["ETag"])


def _multipart(client: Any, bucket: str, key: str, body: bytes) -> Any:
    upload_id = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts = []
    for number, start in enumerate(range(0, len(body), PART_BYTES * 2 - 1), start=1):
        chunk = body[start : start + PART_BYTES * 2 - 1]
        etag = client.upload_part(
            Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=chunk
        )["ETag"]
        parts.append({"PartNumber": number, "ETag": etag})
    return client.complete_multipart_upload(
        Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
    )


def _open_uploads(client: Any, bucket: str, count: int) -> dict[str, tuple[str, str]]:
    """Uploads left in progress on purpose, each with one acknowledged part."""
    found = {}
    for i in range(count):
        key = f"pending/{i}"
        upload_id = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
        etag = client.upload_part(
            Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=1, Body=_body(key, PART_BYTES)
        )["ETag"]
        found[upload_id] = (key, etag)
    return found


def _referenced_blobs(storage: Path) -> set[str]:
    db = sqlite3.connect(storage / "meta.sqlite3")
    try:
        names = {row[0] for row in db.execute("SELECT blob FROM objects")}
        names |= {row[0] for row in db.execute("SELECT blob FROM parts")}
    finally:
        db.close()
    return names


def test_sigkill_during_uploads_keeps_acknowledged_objects(
    launch: Callable[..., RefProcess], tmp_path: Path
) -> None:
    ref = launch(*CHEAP_PARTS)
    client = ref.boto()
    bucket = "crash-bucket"
    client.create_bucket(Bucket=bucket)
    pending = _open_uploads(client, bucket, 3)
    ledger, stop = Ledger(), threading.Event()
    threads = [
        threading.Thread(target=_writer, args=(ref, bucket, i, ledger, stop), daemon=True)
        for i in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    time.sleep(RUN_BEFORE_KILL_S)
    ref.kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert len(ledger.acked) >= WRITERS, "too few uploads finished before the kill to mean much"

    again = launch(*CHEAP_PARTS, data_dir=ref.data_dir)
    client = again.boto()
    for key, etag in ledger.acked.items():
        got = client.get_object(Bucket=bucket, Key=key)
        assert got["Body"].read() == ledger.sent[key], f"{key}: bytes differ after the crash"
        assert got["ETag"] == etag, f"{key}: ETag {got['ETag']} != acknowledged {etag}"

    listed = [
        item
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        for item in page.get("Contents", [])
    ]
    for item in listed:
        key = item["Key"]
        # A PUT may commit an instant before its reply is lost: such an object must be whole.
        assert key in ledger.sent, f"{key} listed but never sent"
        body = client.get_object(Bucket=bucket, Key=key)["Body"].read()
        assert body == ledger.sent[key], f"{key}: a partial object is visible"
        assert item["Size"] == len(body)
    assert set(ledger.acked) <= {item["Key"] for item in listed}
    # the restarted store takes writes into a bucket made before it: its write epoch starts
    # past every bucket generation on disk, or each write is refused as racing a deletion
    client.put_object(Bucket=bucket, Key="after-restart", Body=b"written after the restart")
    got = client.get_object(Bucket=bucket, Key="after-restart")["Body"].read()
    assert got == b"written after the restart"

    storage = again.data_dir / "storage"
    tmp_files = [p for p in (storage / "tmp").rglob("*") if p.is_file()]
    assert tmp_files == [], f"temp files survived the restart: {tmp_files[:5]}"
    blob_files = {p.name for p in (storage / "blobs").rglob("*") if p.is_file()}
    orphans = blob_files - _referenced_blobs(storage)
    assert not orphans, f"{len(orphans)} unreferenced blob files after the restart"

    uploads = client.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    listed_ids = {u["UploadId"] for u in uploads}
    assert set(pending) <= listed_ids, "an upload in progress was forgotten by the crash"
    for upload_id, (key, etag) in pending.items():
        parts = client.list_parts(Bucket=bucket, Key=key, UploadId=upload_id)["Parts"]
        assert [(p["PartNumber"], p["ETag"]) for p in parts] == [(1, etag)]
    for upload in uploads:  # every upload left by the crash can be aborted
        client.abort_multipart_upload(Bucket=bucket, Key=upload["Key"], UploadId=upload["UploadId"])
    assert client.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    assert not os.listdir(storage / "tmp")
