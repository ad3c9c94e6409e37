"""A binding's multipart completion is serialised with the calls that end or change its upload.

The S3 surface answers a part, an abort or a second completion that arrives while a completion
joins the parts TooMuchConcurrency; the binding's completion took no such guard. An abort
answered success while the completion was joining, and the completion then published the
aborted upload's object anyway (an acknowledged abort undone); a part replaced meanwhile had its
file removed under the join. The join is held open here by a hook, so the interleaving is fixed.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from reference_impl.bindings.app import build_app
from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.storage.blobs import BlobInfo
from reference_impl.storage.engine import Store
from reference_impl.storage.multipart import Part, UploadStore

BUCKET = "conformance-bindings"


class HeldJoin:
    """UploadStore.join that, its blob written, waits for `release` before returning."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.original = UploadStore.join

    async def __call__(self, store: UploadStore, parts: list[Part]) -> BlobInfo:
        info = await self.original(store, parts)
        self.entered.set()
        await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 10)
        return info


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldJoin]:
    hook = HeldJoin()
    monkeypatch.setattr(UploadStore, "join", lambda store, parts: hook(store, parts))
    yield hook
    hook.release.set()


def _client(tmp_path: Path) -> TestClient:
    day = dt.date(2025, 1, 1)
    ident = default_identity()
    ctx = ServerContext(tmp_path, Profile(day, {}), ident, day, Store(tmp_path / "d"))
    return TestClient(build_app(ctx), headers={"Authorization": f"Bearer {ident.bindings_token}"})


def _call(client: TestClient, op: str, **args: Any) -> dict[str, Any]:
    reply = client.post("/bridge", json={"op": op, "bucket": BUCKET, "args": args})
    assert reply.status_code == 200, reply.text
    doc: dict[str, Any] = reply.json()
    return doc


def _completing(client: TestClient, held: HeldJoin) -> tuple[str, threading.Thread, list[Any]]:
    """An upload of one part whose completion now runs (held in its join)."""
    upload_id = _call(client, "createMultipartUpload", key="k")["result"]["uploadId"]
    part = _call(client, "uploadPart", key="k", uploadId=upload_id, partNumber=1, value="aGk=")
    parts = [{"partNumber": 1, "etag": part["result"]["etag"]}]
    done: list[Any] = []

    def complete() -> None:
        done.append(_call(client, "completeMultipartUpload", key="k", uploadId=upload_id,
                          parts=parts))  # fmt: skip

    thread = threading.Thread(target=complete)
    thread.start()
    assert held.entered.wait(10), "the completion never reached its join"
    return upload_id, thread, done


def test_abort_during_a_completion_is_refused_not_undone(tmp_path: Path, held: HeldJoin) -> None:
    client = _client(tmp_path)
    upload_id, thread, done = _completing(client, held)
    aborted = _call(client, "abortMultipartUpload", key="k", uploadId=upload_id)
    held.release.set()
    thread.join(10)
    published = "result" in _call(client, "head", key="k")
    if "error" not in aborted:  # the abort was acknowledged: nothing may publish after it
        assert not published, f"abort acknowledged, then the upload completed: {done}"
    else:
        assert "10058" in aborted["error"]["message"], aborted
        assert published and "result" in done[0], done


def test_part_during_a_completion_is_refused(tmp_path: Path, held: HeldJoin) -> None:
    client = _client(tmp_path)
    upload_id, thread, done = _completing(client, held)
    part = _call(client, "uploadPart", key="k", uploadId=upload_id, partNumber=1, value="eW8=")
    held.release.set()
    thread.join(10)
    assert "error" in part and "10058" in part["error"]["message"], part
    assert "result" in done[0], done
    got = _call(client, "get", key="k")["result"]
    assert got["body"] == "aGk="
