"""The suite runner used by sensitivity tests: a real run of one rule against the reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import rule_status, run_suite

from conformance import results

pytestmark = pytest.mark.slow
RULE = "gateway.jsonrpc.version"


def test_run_suite_returns_valid_results_for_the_selected_rule(tmp_path: Path) -> None:
    document = run_suite(tmp_path, rules=[RULE])
    assert document.pop("_exit_code") == 0, document["_output"]
    document.pop("_output")
    results.validate(document)
    assert [rule["id"] for rule in document["rules"]] == [RULE]
    assert rule_status(document, RULE) == "PASS"
    assert not list(tmp_path.glob("edge-conformance-*"))
