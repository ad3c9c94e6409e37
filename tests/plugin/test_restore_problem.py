"""A restore that did not hold refuses the verdict whatever else failed in the run.

It fails the run (pytest exit 1, tests/safety/test_restore_failure.py) but left no trace in
results.json: with no failing case, `conformance run` read the exit 1 as pytest failing
outside any case and refused the verdict; beside a SHOULD rule that failed, the exit 1 was
"explained" by that case and the run read CERTIFIED although the user's zone was not
restored. The verdict must not hang on whether a SHOULD rule failed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_catalog import conftest_source

from conformance import cli_run, results
from conformance.plugin import lifecycle

RULES = [{"id": "storage.put.ok"}, {"id": "storage.put.hint", "level": "SHOULD"}]

SUITE = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_put():
    pass

@pytest.mark.rule("storage.put.hint")
def test_hint():
    assert False, "the SHOULD rule is missed"
"""


def _verdict_after_run(pytester: pytest.Pytester) -> tuple[str, dict[str, Any]]:
    """The verdict `conformance run` prints: pytest, then the exit status and `agree`."""
    pytester.makeconftest(conftest_source(RULES))
    pytester.makepyfile(test_suite=SUITE)
    out = pytester.path / "out" / "results.json"
    ret = int(pytester.runpytest("--results", str(out)).ret)
    doc = json.loads(out.read_text())
    code, reasons = cli_run.run_exit_code(doc, ret)
    assert code == 1
    cli_run.agree(doc, code, reasons, ret)
    results.validate(doc)
    return results.verdict(doc), doc


def test_a_failed_restore_refuses_the_verdict_beside_a_failing_should_rule(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    said, _ = _verdict_after_run(pytester)
    assert said == results.CERTIFIED_VERDICT  # only a SHOULD rule failed

    real = lifecycle.finish_run

    def restore_fails(state: Any) -> list[str]:
        real(state)
        return ["edge-conformance: RESTORE FAILED: the zone's rules differ from the journal"]

    monkeypatch.setattr(lifecycle, "finish_run", restore_fails)
    said, doc = _verdict_after_run(pytester)
    assert said == results.NOT_CERTIFIED_VERDICT
    (problem,) = doc["run"]["problems"]
    assert "RESTORE FAILED" in problem["message"]
