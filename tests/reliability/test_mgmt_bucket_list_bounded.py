"""The management API's bucket list describes one page of buckets, not the account's all.

Found by the hostile round of 2026-11-27 (hostile7). `GET .../r2/buckets?per_page=1` built
the full record (a configuration read, a date, the field filter) of every bucket of the
account and then cut its page: ~10 microseconds a bucket of CPU on the event loop (measured
over HTTP, 5,000 buckets: 0.04-0.05 s a list), 10 s for the million buckets an account may
hold, at every list call. The page's names are now chosen by one query (name order, after the
cursor, containing name_contains, per_page + 1 rows) and only they are described.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.mgmt import r2_buckets
from reference_impl.mgmt.app import build_app
from reference_impl.profile import Profile
from reference_impl.storage.engine import Store


@pytest.fixture
def api(tmp_path: Path) -> Any:
    day = dt.date.today()
    ident = default_identity()
    store = Store(tmp_path / "storage")
    ctx = ServerContext(tmp_path, Profile(day, {}), ident, day, store)
    client = TestClient(build_app(ctx), headers={"X-Auth-Email": ident.email,
                                                 "X-Auth-Key": ident.api_key})  # fmt: skip
    yield client, ctx, f"/client/v4/accounts/{ident.account_id}/r2/buckets"
    store.close()


def _names(reply: Any) -> list[str]:
    assert reply.status_code == 200, reply.text
    return [bucket["name"] for bucket in reply.json()["result"]["buckets"]]


def test_a_page_describes_only_its_buckets(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client, ctx, path = api
    for i in range(2000):
        ctx.store.create_bucket(ctx.identity.account_id, f"b-{i:05d}", "auto")
    described = 0
    original = r2_buckets.R2Buckets.describe

    def counted(self: Any, account: str, bucket: Any) -> dict[str, Any]:
        nonlocal described
        described += 1
        return original(self, account, bucket)

    monkeypatch.setattr(r2_buckets.R2Buckets, "describe", counted)
    reply = client.get(path, params={"per_page": "2", "name_contains": "-001"})
    assert _names(reply) == ["b-00100", "b-00101"]
    assert reply.json()["result_info"].get("cursor")
    assert described < 10, f"a page of 2 described {described} buckets"


def test_pages_and_filter_as_before(api: Any) -> None:
    """name_contains, per_page and the cursor select the same buckets as before."""
    client, ctx, path = api
    for name in ("alpha", "beta", "betamax", "gamma-beta", "zeta"):
        ctx.store.create_bucket(ctx.identity.account_id, name, "auto")
    seen: list[str] = []
    params: dict[str, str] = {"per_page": "2", "name_contains": "beta"}
    for _ in range(5):
        reply = client.get(path, params=params)
        seen += _names(reply)
        cursor = reply.json()["result_info"].get("cursor")
        if not cursor:
            break
        params = {**params, "cursor": cursor}
    assert seen == ["beta", "betamax", "gamma-beta"]
    assert _names(client.get(path, params={"per_page": "0"})) == []
    assert _names(client.get(path)) == ["alpha", "beta", "betamax", "gamma-beta", "zeta"]
