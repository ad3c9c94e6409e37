"""The bindings bridge never creates a bucket (issue 26 row MEDIUM 6).

It used to create any bucket a call named: `head` recreated a deleted bucket, `list` made a
never-created one, with no audit entry and no default lifecycle. Now a binding's bucket must
exist (the binding's 10006 error otherwise); only the bridge's own bound bucket is created, once
per data directory, the way every bucket is created.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from reference_impl.bindings.app import build_app
from reference_impl.bindings.provision import BOUND_BUCKET
from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.services import audit
from reference_impl.services.lifecycle import config as lifecycle_config
from reference_impl.storage.engine import Store


def _bridge(tmp_path: Path) -> tuple[TestClient, ServerContext]:
    day = dt.date(2025, 1, 1)
    ident = default_identity()
    store = Store(tmp_path / "storage")
    ctx = ServerContext(tmp_path, Profile(day, {}), ident, day, store)
    client = TestClient(build_app(ctx), headers={"Authorization": f"Bearer {ident.bindings_token}"})
    return client, ctx


def _call(client: TestClient, bucket: str, op: str, **args: Any) -> dict[str, Any]:
    reply = client.post("/bridge", json={"op": op, "bucket": bucket, "args": args})
    assert reply.status_code == 200, reply.text
    doc: dict[str, Any] = reply.json()
    return doc


def test_missing_bucket_is_refused_and_never_created(tmp_path: Path) -> None:
    client, ctx = _bridge(tmp_path)
    account = ctx.identity.account_id
    ctx.store.create_bucket(account, "gone", "auto")
    ctx.store.delete_bucket(account, "gone")
    for bucket in ("gone", "never"):
        for op, args in (("head", {"key": "k"}), ("list", {}), ("get", {"key": "k"}),
                         ("put", {"key": "k", "value": "eA=="})):  # fmt: skip
            doc = _call(client, bucket, op, **args)
            assert "error" in doc and "10006" in doc["error"]["message"], (bucket, op, doc)
        assert ctx.store.get_bucket(account, bucket) is None, f"{bucket} was created"
    ctx.store.close()


def test_bound_bucket_created_once_like_any_bucket(tmp_path: Path) -> None:
    """The bound bucket exists with an audit entry and the default lifecycle; deleted, it
    stays deleted when the bridge starts again on the same data."""
    client, ctx = _bridge(tmp_path)
    account = ctx.identity.account_id
    assert _call(client, BOUND_BUCKET, "head", key="k") == {"result": None}
    actions = [e["action"] for e in audit.entries(ctx, account, BOUND_BUCKET, 0, 10)]
    assert actions == ["CreateBucket"], actions
    assert ctx.store.get_bucket_config(account, BOUND_BUCKET, lifecycle_config.KIND)
    ctx.store.delete_bucket(account, BOUND_BUCKET)
    ctx.store.close()
    client, ctx = _bridge(tmp_path)  # a restart on the same data directory
    assert "error" in _call(client, BOUND_BUCKET, "list")
    assert ctx.store.get_bucket(account, BOUND_BUCKET) is None
    ctx.store.close()
