"""The signed-payload rules go red against a reference that refuses signed uploads."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.suite_runner import rule_status, run_suite

pytestmark = pytest.mark.slow
RULES = ["storage.auth.unchunked-signed-payload", "storage.auth.unchunked-signed-payload-part"]


def test_rules_pass_then_fail_when_the_reference_deviates(tmp_path: Path) -> None:
    """PASS against the reference as it is; FAIL with deviate_refuse_signed_payload set."""
    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    good = run_suite(tmp_path / "good", rules=RULES)
    assert [rule_status(good, rule) for rule in RULES] == ["PASS", "PASS"], good["_output"]
    bad = run_suite(
        tmp_path / "bad", rules=RULES, reference_profile={"deviate_refuse_signed_payload": "true"}
    )
    assert [rule_status(bad, rule) for rule in RULES] == ["FAIL", "FAIL"], bad["_output"]
