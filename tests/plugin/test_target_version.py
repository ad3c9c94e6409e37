"""The results file carries what the target says of itself (history: "which change of theirs")."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import run_suite

from conformance.model.targets import Target
from conformance.plugin import target_version


@pytest.mark.slow
def test_a_run_records_the_versions_its_surfaces_report(tmp_path: Path) -> None:
    doc = run_suite(tmp_path, rules=["gateway.jsonrpc.id-echoed"])
    assert doc["_exit_code"] == 0, doc["_output"]
    said = doc["run"].get("target_version")
    assert said and said.startswith("gateway: "), said  # web3_clientVersion of the embedded chain


def test_unused_or_silent_surfaces_say_nothing() -> None:
    target = Target("t", {"gateway": {"url": "http://127.0.0.1:9", "networks": ["sepolia"]}})
    assert target_version.probe(target, set()) is None  # the run never used the gateway
    assert target_version.probe(target, {"gateway"}) is None  # nothing listens: no version
    assert target_version.probe(None, {"gateway"}) is None
