"""Fixed defect (a review of 9788910): `failing rules` listed XPASS rules under "re-run exactly
these", which skips them; they are now listed apart with `expectations update`.

failing_rules.py lists FAIL/ERROR/FLAKY and XPASS rules, then prints "re-run exactly these:
conformance run --failed-from R"; --failed-from (failed_from.py) selects only FAIL, ERROR and
FLAKY rules, so an XPASS rule on the list is not re-run: the line says more than the command does.
"""

from __future__ import annotations

from pathlib import Path

from conformance.failed_from import failed_rules
from conformance.report.failing_rules import failing_rule_lines


def test_every_listed_rule_is_rerun_by_the_printed_command() -> None:
    doc = {
        "rules": [
            {"id": "storage.a", "level": "MUST", "status": "FAIL", "reason": "boom"},
            {"id": "storage.b", "level": "MUST", "status": "XPASS", "reason": "passed"},
        ]
    }
    lines = failing_rule_lines(doc, Path("r/results.json"))
    assert lines[-1].startswith("re-run exactly these:")
    listed = {line.split()[2].rstrip(":") for line in lines[1:-1]}
    assert listed == set(failed_rules(doc)), (listed, failed_rules(doc))


def test_a_reason_cannot_rewrite_the_terminal() -> None:
    """A rule's reason quotes what the target answered; a hostile target that answers with
    ANSI escapes (cursor up, erase line) can rewrite the `verdict:` line printed just above the
    failing rules (splitlines drops newlines, not ESC)."""
    reason = "expected 200; answered 500 \x1b[3A\x1b[2Kverdict: CERTIFIED"
    doc = {"rules": [{"id": "storage.a", "level": "MUST", "status": "FAIL", "reason": reason}]}
    lines = failing_rule_lines(doc, Path("r/results.json"))
    assert not any(ch < " " and ch != "\t" for line in lines for ch in line), lines
