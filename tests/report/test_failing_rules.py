"""The failing rules `conformance run` prints under its verdict (report/failing_rules.py)."""

from __future__ import annotations

from pathlib import Path

from conformance.report.failing_rules import (
    SHOWN,
    failing_rule_lines,
    first_reason_line,
    xpass_rule_lines,
)


def _rule(rule_id: str, level: str, status: str, reason: str = "") -> dict[str, object]:
    return {"id": rule_id, "level": level, "status": status, "reason": reason}


def test_must_rules_come_first_with_their_reason_and_the_rerun_command() -> None:
    doc = {
        "rules": [
            _rule("storage.a", "SHOULD", "FAIL", "AssertionError: expected 200; answered 500"),
            _rule("storage.b", "MUST", "PASS"),
            _rule(
                "storage.c",
                "MUST",
                "ERROR",
                "conformance.plugin.attribution.RuleFailure: [storage.c] diverged\nmore",
            ),
            _rule("logs.d", "MUST", "FLAKY"),
            _rule("logs.e", "MAY", "N/A"),
        ]
    }
    lines = failing_rule_lines(doc, Path("reports/run 1/results.json"))
    assert lines == [
        "failing rules (3):",
        "  MUST FLAKY logs.d",
        "  MUST ERROR storage.c: diverged",
        "  SHOULD FAIL storage.a: expected 200; answered 500",
        "re-run exactly these: conformance run --failed-from 'reports/run 1/results.json'",
    ]


def test_a_run_without_failing_rules_prints_nothing() -> None:
    doc = {"rules": [_rule("storage.b", "MUST", "PASS"), _rule("x", "MUST", "XFAIL")]}
    assert failing_rule_lines(doc, Path("r.json")) == []


def test_xpass_alone_is_listed_apart_without_a_rerun_command() -> None:
    """--failed-from re-runs FAIL, ERROR and FLAKY rules: XPASS needs the expectations file
    updated, not a re-run, so no re-run command is offered for it, only the update."""
    doc = {"rules": [_rule("a.b", "MUST", "XPASS")]}
    assert failing_rule_lines(doc, Path("r.json")) == []
    assert xpass_rule_lines(doc, Path("r.json")) == [
        "passed against a known failure (1):",
        "  MUST XPASS a.b",
        "update the expectations: conformance expectations update r.json",
    ]


def test_long_lists_and_long_reasons_are_cut() -> None:
    rules = [_rule(f"r.{n:02d}", "MUST", "FAIL", "x" * 400) for n in range(SHOWN + 3)]
    lines = failing_rule_lines({"rules": rules}, None)
    assert len(lines) == 1 + SHOWN + 1
    assert lines[-1] == "  ... and 3 more (the report lists every one)"
    assert all(len(line) < 200 for line in lines)
    assert first_reason_line("\n\n  plain words  \nsecond") == "plain words"


def test_a_bare_object_message_gives_way_to_the_comparison() -> None:
    """`assert x in y, record`: the record's repr is pytest's first line, the comparison next."""
    reason = (
        "AssertionError: {'RayID': '270c', 'EdgeStartTimestamp': '2026-11-27T21:10:47Z', ...}\n"
        "assert 'cookie-value-3' in dict_values(['lower-case'])\n"
        " +  where dict_values(['lower-case']) = ..."
    )
    assert first_reason_line(reason).startswith(
        "assert 'cookie-value-3' in dict_values(['lower-case']) ({'RayID': '270c'"
    )
    worded = "AssertionError: expected 304, got 200\nassert 200 == 304"
    assert first_reason_line(worded) == "expected 304, got 200"
    quoted_prose = "AssertionError: 'Content-Type' must be text/plain\nassert 'x' == 'text/plain'"
    assert first_reason_line(quoted_prose) == "'Content-Type' must be text/plain"
