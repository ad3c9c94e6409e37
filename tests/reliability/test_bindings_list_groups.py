"""Bindings list() with a delimiter: pages end, and a page never walks a whole group's keys.

Found by the hostile round of 2026-11-27 (hostile7). The cursor of a page that ended after a
delimited prefix resumed after `<prefix>` + U+10FFFF; a key with U+10FFFF right after the
prefix and more characters (`dl/a/\\U0010ffffz`, a legal key: XML 1.0 carries it) sorts after
that, so the next page listed `dl/a/` again with the same cursor, for ever: a client paging
until `truncated` is false never stopped. And a page read every key of a prefix it had already
listed, one by one on the event loop (a million keys under `a/`: one list call held every
surface for seconds); S3's ListObjects restarts past the prefix instead (s3/listing.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from reference_impl.bindings.app import build_app
from reference_impl.bindings.provision import BOUND_BUCKET
from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.storage.blobs import BlobInfo
from reference_impl.storage.engine import Store

TOP = "\U0010ffff"


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[tuple[TestClient, ServerContext]]:
    day = dt.date(2025, 1, 1)
    ident = default_identity()
    store = Store(tmp_path / "storage")
    ctx = ServerContext(tmp_path, Profile(day, {}), ident, day, store)
    client = TestClient(build_app(ctx), headers={"Authorization": f"Bearer {ident.bindings_token}"})
    _call(client, "head", key="none")  # the bound bucket is created by the bridge's first call
    yield client, ctx
    store.close()


def _call(client: TestClient, op: str, **args: Any) -> Any:
    reply = client.post("/bridge", json={"op": op, "bucket": BOUND_BUCKET, "args": args})
    assert reply.status_code == 200, reply.text
    doc = reply.json()
    assert "error" not in doc, doc
    return doc["result"]


def _put(ctx: ServerContext, keys: list[str]) -> None:
    """Objects straight into the store (thousands of bridge calls would cost seconds)."""
    account = ctx.identity.account_id
    for key in keys:
        blob = BlobInfo(name=key, size=1, md5_hex="9dd4e461268c8034f5c8564e155c67a6",
                        inline=b"x", epoch=ctx.store.epoch)  # fmt: skip
        ctx.store.put_object(account, BOUND_BUCKET, key, blob, "text/plain", {})


def _pages(client: TestClient, options: dict[str, Any], most: int = 20) -> list[str]:
    """Every entry of a paged listing, in order; fails when it has not ended after `most`."""
    entries: list[str] = []
    cursor = None
    for _ in range(most):
        page = _call(client, "list", options={**options, **({"cursor": cursor} if cursor else {})})
        entries += page["delimitedPrefixes"] + [item["key"] for item in page["objects"]]
        if not page["truncated"]:
            return entries
        cursor = page["cursor"]
    raise AssertionError(f"the listing did not end after {most} pages: {entries}")


@pytest.mark.parametrize("limit", [1, 2, 1000])
def test_prefix_with_top_code_point_keys_listed_once(bridge: Any, limit: int) -> None:
    """Keys holding U+10FFFF after the delimiter roll up into one prefix, listed once."""
    client, ctx = bridge
    _put(ctx, ["dl/a/1", f"dl/a/{TOP}", f"dl/a/{TOP}{TOP}", f"dl/a/{TOP}z", "dl/b", "dl/c/1"])
    entries = _pages(client, {"prefix": "dl/", "delimiter": "/", "limit": limit})
    assert sorted(entries) == ["dl/a/", "dl/b", "dl/c/"]


def test_cursor_with_start_after(bridge: Any) -> None:
    """A cursor past a prefix and a startAfter before it: the later of the two wins."""
    client, ctx = bridge
    _put(ctx, ["a/1", "a/2", "b", "c/1", "d"])
    first = _call(client, "list", options={"delimiter": "/", "limit": 1})
    assert first["delimitedPrefixes"] == ["a/"] and first["truncated"]
    rest = _call(client, "list", options={"delimiter": "/", "cursor": first["cursor"],
                                          "startAfter": "0"})  # fmt: skip
    assert rest["delimitedPrefixes"] == ["c/"] and [o["key"] for o in rest["objects"]] == [
        "b",
        "d",
    ]
    later = _call(client, "list", options={"delimiter": "/", "cursor": first["cursor"],
                                           "startAfter": "c/1"})  # fmt: skip
    assert later["delimitedPrefixes"] == [] and [o["key"] for o in later["objects"]] == ["d"]


def test_page_does_not_read_a_listed_prefix_key_by_key(
    bridge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page with a delimiter reads a bounded number of rows however many keys a prefix
    holds (the event loop is shared by every surface)."""
    client, ctx = bridge
    _put(ctx, [f"big/{i:05d}" for i in range(3000)] + ["small"])
    read = 0
    original = Store.iter_keys

    def counted(self: Store, *args: Any, **kwargs: Any) -> Iterator[Any]:
        nonlocal read
        for record in original(self, *args, **kwargs):
            read += 1
            yield record

    monkeypatch.setattr(Store, "iter_keys", counted)
    page = _call(client, "list", options={"delimiter": "/", "limit": 10})
    assert page["delimitedPrefixes"] == ["big/"]
    assert [item["key"] for item in page["objects"]] == ["small"]
    assert read < 100, f"one page read {read} rows for 2 entries"
