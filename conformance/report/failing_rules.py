"""The failing rules a run prints under its verdict: what an implementer reads first.

The area lines say how many rules failed; someone fixing their implementation needs which
ones, why in one line, and the command that re-runs exactly those. The report holds the rest
(the exchange, the spec line, the triage); this is the terminal's short form of it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from conformance.report.load import Results
from conformance.results import LEVELS, RERUN, XPASS

SHOWN = 12  # rules listed before "... and N more"
WIDTH = 150  # characters of the reason kept on a rule's line
# what a reason starts with that says nothing to a reader: the exception's dotted class and
# the rule id the attribution layer puts in brackets
_NOISE = re.compile(r"^(?:[\w.]+(?:Error|Failure|Exception)\s*:\s*)?(?:\[[^\]]+\]\s*)?")


def failing_rule_lines(doc: Results, results_path: Path | None = None) -> list[str]:
    """`failing rules (N):`, one line per rule (MUST first), and the re-run command.

    A rule is listed when its status needs a fix (FAIL, ERROR, FLAKY) or it passed against a
    known failure (XPASS: the expectations file is out of date). Empty for a run with none.
    """
    shown_statuses = set(RERUN) | {XPASS}
    rules = [r for r in doc.get("rules") or [] if r.get("status") in shown_statuses]
    if not rules:
        return []
    rules.sort(key=_order)
    lines = [f"failing rules ({len(rules)}):"]
    for rule in rules[:SHOWN]:
        lines.append(_rule_line(rule))
    if len(rules) > SHOWN:
        lines.append(f"  ... and {len(rules) - SHOWN} more (the report lists every one)")
    if results_path is not None and any(r.get("status") in RERUN for r in rules):
        command = f"conformance run --failed-from {shlex.quote(str(results_path))}"
        lines.append(f"re-run exactly these: {command}")
    return lines


def _order(rule: dict[str, Any]) -> tuple[int, str]:
    level = str(rule.get("level"))
    rank = LEVELS.index(level) if level in LEVELS else len(LEVELS)
    return rank, str(rule.get("id"))


def _rule_line(rule: dict[str, Any]) -> str:
    head = f"  {rule.get('level')} {rule.get('status')} {rule.get('id')}"
    why = first_reason_line(str(rule.get("reason") or ""))
    return f"{head}: {why}" if why else head


def first_reason_line(reason: str) -> str:
    """The reason's first line without its exception class and rule tag, cut to WIDTH."""
    first = next((line.strip() for line in reason.splitlines() if line.strip()), "")
    text = _NOISE.sub("", first, count=1).strip() or first
    return text if len(text) <= WIDTH else text[: WIDTH - 3].rstrip() + "..."
