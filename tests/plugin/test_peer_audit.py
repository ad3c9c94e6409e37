"""The pieces of the peer audit that need no peer: the verdict ledger check, the gateway's
declared provider behaviours, the last exchange in a failure message, setup as ERROR."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conformance.clients.gateway import GatewayClient
from conformance.plugin.case_records import last_exchange, with_exchange
from conformance.plugin.report_details import _is_assertion
from conformance.suite.gateway.helpers import need_behaviour
from conformance.suite.setup_check import SetupFailed, require, require_ok

ROOT = Path(__file__).resolve().parents[2]


def _check_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "verdict_check", ROOT / "fixtures" / "peers" / "verdicts" / "check.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _results(statuses: dict[str, str], area: str = "storage") -> dict[str, Any]:
    return {
        "run": {"flags": {"area": [area]}},
        "rules": [{"id": rid, "status": st} for rid, st in statuses.items()],
    }


def test_ledger_names_unlisted_fails_and_stale_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    check = _check_module()
    monkeypatch.setattr(check, "ledger", lambda peer: {"storage.a": "why", "storage.b": "why"})
    statuses = {"storage.a": "FAIL", "storage.b": "PASS", "storage.c": "FAIL", "storage.d": "PASS"}
    problems = check.compare("peer", _results(statuses))
    assert problems == [
        "FAIL without a ledger entry: storage.c",
        "ledger entry no longer FAILs: storage.b (PASS)",
    ]


def test_ledger_ignores_entries_of_areas_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    check = _check_module()
    monkeypatch.setattr(check, "ledger", lambda peer: {"gateway.x": "why"})
    assert check.compare("peer", _results({"storage.a": "PASS"})) == []


def test_entries_a_subset_run_left_out_are_not_disagreements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`-- -k x` leaves other tests out as NOT-CHECKED placeholders; a `--rule` run names
    only some rules: neither confirms nor contradicts an entry, so neither is a disagreement."""
    check = _check_module()
    monkeypatch.setattr(
        check, "ledger", lambda peer: {"storage.a": "why", "storage.b": "why", "storage.c": "w"}
    )
    results = _results({"storage.a": "NOT-CHECKED", "storage.b": "PASS"})
    results["cases"] = [
        {"rule_id": "storage.a", "case": "deselected", "status": "NOT-CHECKED"},
        {"rule_id": "storage.b", "case": "x", "status": "PASS"},
    ]
    results["run"]["flags"]["rule"] = ["storage.a", "storage.b$"]
    problems, unreached = check.split("peer", results)
    assert problems == ["ledger entry no longer FAILs: storage.b (PASS)"]
    assert unreached == ["ledger entry not reached (a test of it left out): storage.a"]


def test_every_shipped_ledger_entry_has_a_reason() -> None:
    check = _check_module()
    for peer in ("moto", "seaweedfs", "hardhat"):
        entries = check.ledger(peer)
        assert entries, f"{peer}: empty ledger"
        assert all(len(reason) > 20 for reason in entries.values()), peer


def test_gateway_provider_behaviours_default_to_both_and_can_be_declared_absent() -> None:
    both = GatewayClient.from_surface({"url": "http://127.0.0.1:1"})
    assert both.offers_behaviour("method-allow-list") and both.offers_behaviour("network-routing")
    plain = GatewayClient.from_surface({"url": "http://127.0.0.1:1", "provider_gateway": []})
    assert not plain.offers_behaviour("method-allow-list")
    with pytest.raises(pytest.skip.Exception, match=r"N/A: .*method-allow-list"):
        need_behaviour(plain, "method-allow-list")
    need_behaviour(both, "network-routing")  # offered: no skip


def test_failure_message_ends_with_the_last_exchange_and_its_request_body() -> None:
    evidence = [
        {"method": "GET", "url": "http://t/a", "status": 200, "body_excerpt": "first"},
        {"method": "POST", "url": "http://t/v1/sepolia", "status": 200,
         "request_body_excerpt": '{"id": null}', "body_excerpt": '{"error": {}}'},
    ]  # fmt: skip
    line = last_exchange(evidence)
    assert line == 'last exchange: POST http://t/v1/sepolia {"id": null} -> 200 {"error": {}}'
    assert with_exchange("assert 1 == 2", evidence) == f"assert 1 == 2\n{line}"
    assert with_exchange("boom", []) == "boom"


class _Reply:
    def __init__(self, status: int) -> None:
        self.status = status

    def describe(self) -> str:
        return f"PUT /b answered {self.status}"


def test_setup_that_did_not_hold_is_an_error_not_an_assertion() -> None:
    with pytest.raises(SetupFailed, match=r"CreateBucket did not succeed: PUT /b answered 400"):
        require_ok(_Reply(400), "CreateBucket")
    assert require_ok(_Reply(200), "CreateBucket").status == 200
    with pytest.raises(SetupFailed) as caught:
        require(False, "no transaction")
    assert not _is_assertion(caught)  # recorded as ERROR, not FAIL
