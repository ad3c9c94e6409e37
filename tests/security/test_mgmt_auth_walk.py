"""The management API answers nothing without valid credentials, on every route it has.

The routes are read from the reference's own route table (not a hand-kept list), so a route
added later (R2 buckets, custom domains, sippy, audit log, ...) is walked without anyone having
to remember this test. Each is called with no, malformed and wrong credentials.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from reliability.refproc import REQUEST_TIMEOUT, RefProcess, start

from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.mgmt.app import MgmtApi
from reference_impl.profile import Profile
from reference_impl.storage.engine import Store

GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")
CREDENTIALS: dict[str, dict[str, str]] = {
    "none": {},
    "email-only": {"X-Auth-Email": "owner@example.com"},
    "malformed-key": {"X-Auth-Email": "owner@example.com", "X-Auth-Key": "not-a-key"},
    "unknown-pair": {"X-Auth-Email": "mallory@example.com", "X-Auth-Key": "f" * 37},
    "right-email-wrong-key": {"X-Auth-Email": "owner@example.com", "X-Auth-Key": "e" * 37},
    "bearer-token": {"Authorization": "Bearer " + "a" * 40},
}


def _routes(tmp: Path) -> list[tuple[str, str]]:
    """(method, path pattern) of every route in the management API's table."""
    ident = default_identity()
    today = dt.date.today()
    ctx = ServerContext(tmp, Profile(today), ident, today, Store(tmp / "storage"))
    ctx.urls = {"mgmt": "http://127.0.0.1:9", "s3": "http://127.0.0.1:9"}
    api = MgmtApi(ctx)
    found = [(method, regex.pattern) for method, regex, _ in api.table]
    ctx.store.close()
    return found


def _concrete(pattern: str, ids: dict[str, str]) -> str:
    path = GROUP.sub(lambda m: ids.get(m.group(1), "walk-" + m.group(1)), pattern)
    return path.removesuffix("$").replace("/?", "")


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    proc = start(tmp_path_factory.mktemp("mgmt") / "data")
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def routes(tmp_path_factory: pytest.TempPathFactory, ref: RefProcess) -> list[tuple[str, str]]:
    mgmt = ref.surface("mgmt")
    ids = {"zone": ref.surface("rules_api")["zone_id"], "account": mgmt["account_id"]}
    table = _routes(tmp_path_factory.mktemp("routes"))
    assert len(table) >= 13, "the management route table looks empty"
    return [(method, mgmt["base_url"] + _concrete(p, ids)) for method, p in table]


def _assert_refused(response: requests.Response, where: str) -> None:
    assert response.status_code in (400, 401, 403), f"{where}: {response.status_code}"
    document: Any = response.json()
    assert document.get("success") is False, where
    assert document.get("result") is None, f"{where}: data answered without credentials"
    codes = {error.get("code") for error in document.get("errors", [])}
    assert codes & {6003, 9103, 9106, 10000}, f"{where}: error codes {codes}"


@pytest.mark.parametrize("who", sorted(CREDENTIALS))
def test_every_route_refuses_without_valid_credentials(
    routes: list[tuple[str, str]], who: str
) -> None:
    for method, url in routes:
        response = requests.request(
            method, url, headers=CREDENTIALS[who], json={"name": "x"}, timeout=REQUEST_TIMEOUT
        )
        _assert_refused(response, f"{method} {url} with {who}")


def test_valid_credentials_do_reach_the_routes(
    ref: RefProcess, routes: list[tuple[str, str]]
) -> None:
    """The walk is meaningful: with the right pair, GET routes are no longer auth refusals."""
    mgmt = ref.surface("mgmt")
    headers = {"X-Auth-Email": mgmt["email"], "X-Auth-Key": mgmt["api_key"]}
    for method, url in routes:
        if method != "GET":
            continue
        response = requests.get(url, headers=headers, timeout=REQUEST_TIMEOUT)
        assert response.status_code < 500, f"GET {url}: {response.status_code}"
        codes = {e.get("code") for e in response.json().get("errors", [])}
        assert not codes & {6003, 9103, 9106}, f"GET {url}: refused with valid credentials"
