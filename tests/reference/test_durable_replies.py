"""Replies wait for an fsync of the WAL that covers their changes; readers never wait."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.server import surface_app
from reference_impl.storage.engine import Store


@pytest.fixture
def store(tmp_path: Path) -> Any:
    opened = Store(tmp_path / "storage")
    yield opened
    opened.close()


def test_no_change_no_fsync(store: Store) -> None:
    asyncio.run(store.durable())
    assert store.syncer.fsyncs == 0


def test_a_change_is_fsynced_once(store: Store) -> None:
    store.create_bucket("acct", "b", "auto")
    asyncio.run(store.durable())
    asyncio.run(store.durable())
    assert store.syncer.fsyncs == 1


def test_concurrent_replies_share_fsyncs(store: Store) -> None:
    """Twenty replies waiting together need one or two fsyncs (group commit), not twenty."""

    async def many() -> None:
        for index in range(20):
            store.create_bucket("acct", f"b{index}", "auto")
        await asyncio.gather(*(store.durable() for _ in range(20)))

    asyncio.run(many())
    assert 1 <= store.syncer.fsyncs <= 2


def test_a_change_after_an_fsync_started_waits_for_the_next(store: Store) -> None:
    async def interleaved() -> None:
        store.create_bucket("acct", "first", "auto")
        first = asyncio.ensure_future(store.durable())
        await asyncio.sleep(0)  # the first fsync is under way
        store.create_bucket("acct", "second", "auto")
        await asyncio.gather(first, store.durable())

    asyncio.run(interleaved())
    assert store.syncer.fsyncs == 2


def _ctx(tmp_path: Path) -> ServerContext:
    today = dt.date.today()
    # signatures off: the test speaks raw ASGI, the point is the order of fsync and reply
    ctx = ServerContext(
        tmp_path,
        Profile(today, {"verify_signatures": "false"}),
        default_identity(),
        today,
        Store(tmp_path / "storage"),
    )
    ctx.durable_replies = True  # `python -m reference_impl --durable`
    return ctx


@pytest.mark.parametrize(
    "method,path,fsyncs_before_reply",
    [("PUT", "/durable-bucket", 1), ("GET", "/", 0)],
    ids=["write-waits", "read-does-not"],
)
def test_surface_reply_starts_after_the_fsync(
    tmp_path: Path, method: str, path: str, fsyncs_before_reply: int
) -> None:
    """Through the app server.py builds: the response starts only after the WAL fsync."""
    ctx = _ctx(tmp_path)
    app = surface_app("reference_impl.s3.app", ctx)
    seen: list[int] = []

    async def call() -> None:
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 9), "headers": [(b"host", b"127.0.0.1:9")],
        }  # fmt: skip

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                seen.append(ctx.store.syncer.fsyncs)
                assert message["status"] < 300, message

        await app(scope, receive, send)

    try:
        asyncio.run(call())
    finally:
        ctx.store.close()
    assert seen == [fsyncs_before_reply]


def test_durable_flag_reaches_the_server(launch: Any, make_boto: Any) -> None:
    """`--durable` is announced in the ready file and writes still round-trip through it."""
    ref = launch("--durable")
    assert ref.ready["durable_replies"] is True
    s3 = make_boto(ref.s3)
    s3.create_bucket(Bucket="durable")
    s3.put_object(Bucket="durable", Key="k", Body=b"on disk before the 200")
    assert s3.get_object(Bucket="durable", Key="k")["Body"].read() == b"on disk before the 200"
