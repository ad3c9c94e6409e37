"""ListMultipartUploads reads about one page of uploads, however many the bucket holds.

Found by the hostile round of 2026-11-27 (hostile7). The listing loaded every upload in
progress of the bucket (one decoded row each) and then cut its page in Python: uploads cost a
client one small CreateMultipartUpload each, and with 100,000 of them every ListMultipartUploads
held the event loop, and so every surface of every account, ~0.6 s of CPU (measured on this
machine under load: `list_uploads` of 100,000 rows took 0.61 s of process time). The page is
now read by bounded queries (storage/multipart.py `uploads_after`). The markers' semantics are
kept and checked here too; the suite's test_list_multipart_uploads_pages.py checks them
black-box.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.s3.app import build_app
from reference_impl.storage import multipart
from reference_impl.storage.engine import Store

NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
BUCKET = "uploads"


@pytest.fixture
def s3(tmp_path: Path) -> Iterator[tuple[TestClient, ServerContext]]:
    day = dt.date.today()
    ident = default_identity()
    # signatures off: the point is what one listing reads, not how it is signed
    ctx = ServerContext(tmp_path, Profile(day, {"verify_signatures": "false"}), ident, day,
                        Store(tmp_path / "storage"))  # fmt: skip
    client = TestClient(build_app(ctx))
    assert client.put(f"/{BUCKET}").status_code == 200
    yield client, ctx
    ctx.store.close()


def _start(ctx: ServerContext, keys: list[str]) -> list[tuple[str, str]]:
    """Uploads created straight in the store (thousands of requests would cost seconds)."""
    store = multipart.uploads_of(ctx.store)
    account = ctx.identity.account_id
    return [(k, store.create(account, BUCKET, k, "text/plain", {}).upload_id) for k in keys]


def _page(client: TestClient, **params: str) -> tuple[list[tuple[str, str]], ET.Element]:
    query = {"uploads": "", **{name.replace("_", "-"): value for name, value in params.items()}}
    reply = client.get(f"/{BUCKET}", params=query)
    assert reply.status_code == 200, reply.text
    root = ET.fromstring(reply.content)
    listed = [(u.findtext(f"{NS}Key") or "", u.findtext(f"{NS}UploadId") or "")
              for u in root.iter(f"{NS}Upload")]  # fmt: skip
    return listed, root


def test_one_page_reads_a_bounded_number_of_uploads(
    s3: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, ctx = s3
    _start(ctx, [f"k{i:05d}" for i in range(3000)])
    built = 0
    original = multipart._upload

    def counted(row: tuple[Any, ...]) -> multipart.Upload:
        nonlocal built
        built += 1
        return original(row)

    monkeypatch.setattr(multipart, "_upload", counted)
    listed, root = _page(client, max_uploads="2", key_marker="k01000")
    assert [key for key, _ in listed] == ["k01001", "k01002"]
    assert root.findtext(f"{NS}IsTruncated") == "true"
    assert built < 50, f"a page of 2 uploads read {built} of them"


def test_pages_with_markers_list_each_upload_once(s3: Any) -> None:
    """Two-upload pages over keys with several uploads each join into every upload once,
    in key then initiation order."""
    client, ctx = s3
    started = _start(ctx, ["a", "b", "b", "b", "b", "c", "d/1", "d/2"])
    seen: list[tuple[str, str]] = []
    params = {"max_uploads": "2"}
    for _ in range(10):
        listed, root = _page(client, **params)
        seen += listed
        if root.findtext(f"{NS}IsTruncated") != "true":
            break
        params = {"max_uploads": "2", "key_marker": root.findtext(f"{NS}NextKeyMarker") or "",
                  "upload_id_marker": root.findtext(f"{NS}NextUploadIdMarker") or ""}  # fmt: skip
    assert sorted(seen) == sorted(started) and len(seen) == len(started), seen
    assert [key for key, _ in seen] == sorted(key for key, _ in started)
    b_ids = [upload for key, upload in started if key == "b"]
    assert [upload for key, upload in seen if key == "b"] == b_ids  # initiation order


def test_markers_and_prefix(s3: Any) -> None:
    client, ctx = s3
    started = dict(enumerate(_start(ctx, ["a", "b", "b", "c", "d/1"])))
    b_first, b_second = started[1][1], started[2][1]
    listed, _ = _page(client, key_marker="b")
    assert listed == [started[3], started[4]]
    listed, _ = _page(client, key_marker="b", upload_id_marker=b_first)
    assert listed == [started[2], started[3], started[4]]
    # an id the key does not hold: ids compared (S3's documented fallback)
    listed, _ = _page(client, key_marker="b", upload_id_marker="0")
    assert listed == [started[1], started[2], started[3], started[4]]
    listed, _ = _page(client, key_marker="b", upload_id_marker=max(b_first, b_second) + "z")
    assert listed == [started[3], started[4]]
    listed, _ = _page(client, prefix="d/")
    assert listed == [started[4]]
    listed, _ = _page(client, max_uploads="0")
    assert listed == []
