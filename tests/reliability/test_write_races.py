"""Writes racing writes (issue 26 rows HIGH 4 and 5): conditions decided when a write publishes,
and a migration fetch that never undoes a newer write or a delete.

A create-if-absent write (`If-None-Match: *`) used to be checked when its request arrived and
published whenever its body was stored, so two of them both answered 200 and the later one
silently replaced the earlier; a conditional completion was checked before its parts were
joined. A migration fetch used to publish its copy whenever the source finished sending it,
over a PUT acknowledged meanwhile, or bringing back a key a DELETE had removed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from reliability.refproc import RefProcess
from reliability.test_bucket_races import blob_files, finish, streaming_put, tmp_files

from conformance.clients import s3_multipart as mp
from conformance.clients.mgmt import MgmtClient
from conformance.clients.s3_wire import WireClient, WireReply
from reference_impl.storage.engine import ObjectRecord, Store
from reference_impl.wire.s3.errors import S3Error

IF_ABSENT = {"If-None-Match": "*"}
SIZES = {"inline": 1000, "file": 300 * 1024}


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> WireClient:
    return ref.wire()


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
def test_two_create_if_absent_puts_one_wins(ref: RefProcess, wire: WireClient, size: int) -> None:
    """The PUT that finishes first wins; the one still streaming then is 412, its blob gone."""
    bucket = f"race-ifabsent-{size}"
    wire.create_bucket(bucket).assert_ok()
    first, second = b"1" * size, b"2" * size
    before = blob_files(ref)
    with streaming_put(wire, bucket, "k", first, headers=IF_ABSENT) as conn:
        quick = wire.put_object(bucket, "k", second, IF_ABSENT)
        status, reply = finish(conn, first)
    assert quick.status == 200, quick.describe()
    assert status == 412 and b"PreconditionFailed" in reply, (status, reply[:300])
    assert wire.get_object(bucket, "k").assert_ok().body == second
    assert len(blob_files(ref) - before) == (1 if size > 64 * 1024 else 0)
    assert not tmp_files(ref)
    wire.request("DELETE", bucket, "k").assert_ok()
    wire.request("DELETE", bucket).assert_ok()


def test_conditional_completion_loses_to_a_put_during_the_join(
    launch: Callable[..., RefProcess],
) -> None:
    """If-None-Match: * completion, a plain PUT while its parts are joined: 412, PUT kept."""
    ref = launch("--profile", "multipart_complete_delay_seconds=1.5")
    wire = ref.wire()
    wire.create_bucket("race-complete").assert_ok()
    upload = mp.start(wire, "race-complete", "k")
    part = mp.etag(mp.upload_part(wire, "race-complete", "k", upload, 1, b"from the upload"))
    done: list[WireReply] = []

    def complete() -> None:
        twin = ref.wire()
        done.append(mp.complete(twin, "race-complete", "k", upload, [(1, part)], IF_ABSENT))

    thread = threading.Thread(target=complete)
    thread.start()
    time.sleep(0.5)  # the completion checked its condition and waits before the join
    wire.put_object("race-complete", "k", b"the plain PUT").assert_ok()
    thread.join(30)
    assert done and done[0].status == 412, done[0].describe() if done else "no answer"
    assert done[0].error_code == "PreconditionFailed"
    assert wire.get_object("race-complete", "k").assert_ok().body == b"the plain PUT"
    gone = mp.list_parts(wire, "race-complete", "k", upload)  # a failed condition aborts
    assert (gone.status, gone.error_code) == (404, "NoSuchUpload")


async def _one(body: bytes) -> AsyncIterator[bytes]:
    yield body


@pytest.mark.parametrize("size", [100, 200 * 1024], ids=["inline", "file"])
def test_engine_checks_the_condition_in_the_publishing_transaction(
    tmp_path: Path, size: int
) -> None:
    """The mechanism under every conditional write (PUT, completion, copy, bindings onlyIf)."""
    store = Store(tmp_path / "storage")

    def absent(current: ObjectRecord | None) -> None:
        if current is not None:
            raise S3Error("PreconditionFailed", Condition="If-None-Match")

    try:
        store.create_bucket("acct", "b", "auto")
        one = asyncio.run(store.write_blob(_one(b"1" * size)))
        two = asyncio.run(store.write_blob(_one(b"2" * size)))
        store.put_object("acct", "b", "k", two, "text/plain", {}, check=absent)
        with pytest.raises(S3Error):
            store.put_object("acct", "b", "k", one, "text/plain", {}, check=absent)
        record = store.get_object("acct", "b", "k")
        assert record is not None and b"".join(store.read_object(record)) == b"2" * size
        files = [p.name for p in store.blobs.root.rglob("*") if p.is_file()]
        assert files == ([two.name] if size > 64 * 1024 else [])
    finally:
        store.close()


# -- migration ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def source() -> Iterator[tuple[str, int]]:
    pytest.importorskip("moto", reason="moto[server] is the migration source")
    from helpers.moto_source import moto_server

    with moto_server() as (endpoint, _):
        host, port = endpoint.removeprefix("http://").split(":")
        yield host, int(port)


@contextmanager
def _held_fetch(
    ref: RefProcess, wire: WireClient, upstream: tuple[str, int], bucket: str
) -> Iterator[Callable[[], WireReply]]:
    """A GetObject of `k`, which only the source has, held after 64 KiB of the object."""
    from conformance.suite.storage.migration.held_source import held_relay
    from conformance.suite.storage.migration.support import source_client

    keys = {"access_key_id": "testing", "secret_access_key": "testing", "region": "us-east-1"}
    with held_relay(upstream, 64 * 1024) as relay:
        client = source_client({**keys, "endpoint": f"http://{upstream[0]}:{upstream[1]}"})
        client.create_bucket(Bucket=bucket)
        client.put_object(Bucket=bucket, Key="k", Body=b"old" * 200_000)
        wire.create_bucket(bucket).assert_ok()
        config = {
            "source": {"provider": "aws", "bucket": bucket, "region": "us-east-1",
                       "accessKeyId": "testing", "secretAccessKey": "testing",
                       "endpoint": relay.endpoint},
            "destination": {"provider": "r2", "accessKeyId": "d", "secretAccessKey": "d"},
        }  # fmt: skip
        MgmtClient.from_surface(ref.surface("mgmt")).put_sippy(bucket, config).assert_envelope_ok()
        relay.arm()
        got: list[WireReply] = []
        reader = threading.Thread(target=lambda: got.append(ref.wire().get_object(bucket, "k")))
        reader.start()
        assert relay.held.wait(30), "the GET did not start a fetch"

        def done() -> WireReply:
            relay.release()
            reader.join(60)
            assert got, "the GET that started the fetch never answered"
            return got[0]

        yield done


def test_put_during_a_migration_fetch_is_kept(
    ref: RefProcess, wire: WireClient, source: tuple[str, int]
) -> None:
    """PUT 200 while the fetch runs: the racing GET and every later read see the PUT."""
    with _held_fetch(ref, wire, source, "race-sippy-put") as done:
        wire.put_object("race-sippy-put", "k", b"newer").assert_ok()
        reply = done()
    assert reply.status == 200 and reply.body == b"newer", reply.describe()
    assert wire.get_object("race-sippy-put", "k").assert_ok().body == b"newer"


def test_delete_during_a_migration_fetch_stays_done(
    ref: RefProcess, wire: WireClient, source: tuple[str, int]
) -> None:
    """DELETE 204 while the fetch runs: the copy is not published (nor its blob kept)."""
    before = blob_files(ref)
    with _held_fetch(ref, wire, source, "race-sippy-del") as done:
        assert wire.request("DELETE", "race-sippy-del", "k").status == 204
        reply = done()
    assert (reply.status, reply.error_code) == (404, "NoSuchKey"), reply.describe()
    listed = wire.list_objects_v2("race-sippy-del").assert_ok()
    assert b"<Key>" not in listed.body, listed.body[:300]
    assert blob_files(ref) <= before, "the refused copy's blob was left behind"
