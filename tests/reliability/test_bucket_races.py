"""Bucket deletes racing object writes: nothing may land in, or come back to, a deleted bucket.

Issue 16 rows 1 and 2: a DeleteBucket that arrives while PUTs stream their bodies must not let
those PUTs land afterwards (their rows would outlive the bucket, their blobs leak, and a bucket
recreated under the same name would bring the objects back); an upload in progress must not
survive into a recreated bucket either (docs/reference-choices.md, "DeleteBucket with uploads").
"""

from __future__ import annotations

import asyncio
import http.client
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient
from reference_impl.storage.engine import BucketGone, Store
from reference_impl.storage.multipart import uploads_of

PART = 5 * 1024 * 1024
SETTLE = 0.3  # seconds for the reference to start handling a request whose body is half sent
SIZES = {"inline": 1000, "small-file": 200 * 1024, "batched-file": 3 * 1024 * 1024}


@contextmanager
def streaming_put(
    wire: WireClient,
    bucket: str,
    key: str,
    body: bytes,
    query: list[tuple[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> Iterator[http.client.HTTPConnection]:
    """A signed PUT whose headers and first half of the body are sent; the caller sends the rest.

    UNSIGNED-PAYLOAD: the body is streamed by hand, so its hash is not in the signature.
    """
    length = {**(headers or {}), "Content-Length": str(len(body))}
    prepared = wire.prepare(
        "PUT", bucket, key, query=query or [], headers=length, payload_hash="UNSIGNED-PAYLOAD"
    )
    url = urlsplit(prepared.url)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=20)
    try:
        target = f"{url.path}?{url.query}" if url.query else url.path
        conn.putrequest("PUT", target, skip_accept_encoding=True)
        for name, value in prepared.headers.items():
            if name.lower() not in ("content-length", "host"):
                conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders()
        conn.send(body[: len(body) // 2])
        time.sleep(SETTLE)  # the handler has checked the bucket and is reading the body
        yield conn
    finally:
        conn.close()


def finish(conn: http.client.HTTPConnection, body: bytes) -> tuple[int, bytes]:
    conn.send(body[len(body) // 2 :])
    reply = conn.getresponse()
    return reply.status, reply.read()


def blob_files(ref: RefProcess) -> set[str]:
    root = Path(ref.data_dir) / "storage" / "blobs"
    return {path.name for path in root.rglob("*") if path.is_file()}


def tmp_files(ref: RefProcess) -> list[Path]:
    return [path for path in (Path(ref.data_dir) / "storage" / "tmp").rglob("*") if path.is_file()]


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> WireClient:
    return ref.wire()


@pytest.mark.parametrize("recreate", [False, True], ids=["deleted", "recreated"])
@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
def test_put_streaming_while_bucket_deleted_never_lands(
    ref: RefProcess, wire: WireClient, size: int, recreate: bool
) -> None:
    """DeleteBucket 204 mid-body; the PUT then fails NoSuchBucket and leaves no row, no blob."""
    bucket = f"race-del-{size}-{int(recreate)}"
    wire.create_bucket(bucket).assert_ok()
    body = bytes(range(256)) * (size // 256 + 1)
    body = body[:size]
    before = blob_files(ref)
    with streaming_put(wire, bucket, "streamed", body) as conn:
        assert wire.request("DELETE", bucket).status == 204
        if recreate:
            wire.create_bucket(bucket).assert_ok()
        status, reply = finish(conn, body)
    assert status == 404 and b"<Code>NoSuchBucket</Code>" in reply, (status, reply[:300])
    if not recreate:
        assert wire.head_bucket(bucket).status == 404
        wire.create_bucket(bucket).assert_ok()
    listed = wire.list_objects_v2(bucket)
    assert listed.status == 200 and b"<Key>" not in listed.body, listed.body[:300]
    assert wire.get_object(bucket, "streamed").status == 404
    assert blob_files(ref) <= before, "a refused PUT left its blob file behind"
    assert not tmp_files(ref)
    wire.request("DELETE", bucket).assert_ok()


def test_delete_bucket_aborts_uploads_in_progress(ref: RefProcess, wire: WireClient) -> None:
    """204 as on S3; the upload is gone with its parts and never reaches a recreated bucket."""
    bucket = "race-mpu"
    wire.create_bucket(bucket).assert_ok()
    created = wire.request("POST", bucket, "big", query=[("uploads", None)]).assert_ok()
    upload_id = created.body.split(b"<UploadId>")[1].split(b"</UploadId>")[0].decode()
    before = blob_files(ref)
    part = wire.request(
        "PUT",
        bucket,
        "big",
        query=[("partNumber", "1"), ("uploadId", upload_id)],
        body=b"p" * PART,
    ).assert_ok()
    assert len(blob_files(ref) - before) == 1
    assert wire.request("DELETE", bucket).status == 204
    assert blob_files(ref) <= before, "the aborted upload's part file was left behind"
    wire.create_bucket(bucket).assert_ok()
    listed = wire.request("GET", bucket, query=[("uploads", None)]).assert_ok()
    assert b"<UploadId>" not in listed.body, listed.body[:300]
    again = wire.request(
        "PUT", bucket, "big", query=[("partNumber", "2"), ("uploadId", upload_id)], body=b"q"
    )
    assert (again.status, again.error_code) == (404, "NoSuchUpload")
    etag = part.header("ETag")
    complete = (
        "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
        f"<ETag>{etag}</ETag></Part></CompleteMultipartUpload>"
    ).encode()
    done = wire.request("POST", bucket, "big", query=[("uploadId", upload_id)], body=complete)
    assert (done.status, done.error_code) == (404, "NoSuchUpload")
    assert wire.get_object(bucket, "big").status == 404
    wire.request("DELETE", bucket).assert_ok()


def test_part_streaming_while_bucket_deleted_is_not_kept(ref: RefProcess, wire: WireClient) -> None:
    """A part whose upload was aborted with its bucket mid-body: NoSuchUpload, no part file."""
    bucket = "race-mpu-part"
    wire.create_bucket(bucket).assert_ok()
    created = wire.request("POST", bucket, "big", query=[("uploads", None)]).assert_ok()
    upload_id = created.body.split(b"<UploadId>")[1].split(b"</UploadId>")[0].decode()
    body = b"r" * (2 * 1024 * 1024)
    before = blob_files(ref)
    query = [("partNumber", "1"), ("uploadId", upload_id)]
    with streaming_put(wire, bucket, "big", body, query) as conn:
        assert wire.request("DELETE", bucket).status == 204
        wire.create_bucket(bucket).assert_ok()
        status, reply = finish(conn, body)
    assert status == 404 and b"NoSuchUpload" in reply, (status, reply[:300])
    assert blob_files(ref) <= before
    wire.request("DELETE", bucket).assert_ok()


async def _one(body: bytes) -> AsyncIterator[bytes]:
    yield body


@pytest.mark.parametrize("size", [100, 200 * 1024], ids=["inline", "file"])
def test_engine_refuses_a_blob_older_than_its_bucket(tmp_path: Path, size: int) -> None:
    """The mechanism behind every commit path: a write that began before the bucket existed
    (deleted and recreated meanwhile) or whose bucket is gone is refused and its file removed."""
    store = Store(tmp_path / "storage")
    try:
        store.create_bucket("acct", "b", "auto")
        stale = asyncio.run(store.write_blob(_one(b"s" * size)))
        store.delete_bucket("acct", "b")
        with pytest.raises(BucketGone):
            store.put_object("acct", "b", "k", stale, "text/plain", {})
        stale = asyncio.run(store.write_blob(_one(b"s" * size)))
        store.create_bucket("acct", "b", "auto")  # recreated after the write began
        with pytest.raises(BucketGone):
            store.put_object("acct", "b", "k", stale, "text/plain", {})
        assert store.get_object("acct", "b", "k") is None
        assert not [p for p in store.blobs.root.rglob("*") if p.is_file()]
        fresh = asyncio.run(store.write_blob(_one(b"f" * size)))
        assert store.put_object("acct", "b", "k", fresh, "text/plain", {}).size == size
        with pytest.raises(BucketGone):  # an upload cannot start in a bucket that is gone
            uploads_of(store).create("acct", "gone", "k", "text/plain", {})
    finally:
        store.close()
