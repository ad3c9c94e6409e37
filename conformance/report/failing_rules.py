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
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_DATA_START = "{[(<"  # a first line that is an object's repr, not words
_QUOTES = "'\""
_NOISE = re.compile(r"^(?:[\w.]+(?:Error|Failure|Exception)\s*:\s*)?(?:\[[^\]]+\]\s*)?")


def failing_rule_lines(doc: Results, results_path: Path | None = None) -> list[str]:
    """`failing rules (N):`, one line per rule (MUST first), and the re-run command.

    A rule is listed when its status needs a fix (FAIL, ERROR, FLAKY): exactly the rules
    `--failed-from` re-runs, so the command under the list does what it says. XPASS rules
    are listed apart (`xpass_rule_lines`). Empty for a run with none.
    """
    lines = _listed(doc, set(RERUN), "failing rules")
    if lines and results_path is not None:
        command = f"conformance run --failed-from {shlex.quote(str(results_path))}"
        lines.append(f"re-run exactly these: {command}")
    return lines


def xpass_rule_lines(doc: Results, results_path: Path | None = None) -> list[str]:
    """The rules that passed against a known failure (XPASS), and how to update the file.

    They fail the run (the expectations file is out of date) but need no fix in the target,
    and `--failed-from` does not re-run them: updating the expectations is their remedy.
    """
    lines = _listed(doc, {XPASS}, "passed against a known failure")
    if lines and results_path is not None:
        command = f"conformance expectations update {shlex.quote(str(results_path))}"
        lines.append(f"update the expectations: {command}")
    return lines


def _listed(doc: Results, statuses: set[str], title: str) -> list[str]:
    rules_in = doc.get("rules")
    rules = [
        r
        for r in (rules_in if isinstance(rules_in, list) else [])
        if isinstance(r, dict) and r.get("status") in statuses
    ]
    if not rules:
        return []
    rules.sort(key=_order)
    lines = [f"{title} ({len(rules)}):"]
    for rule in rules[:SHOWN]:
        lines.append(_rule_line(rule))
    if len(rules) > SHOWN:
        lines.append(f"  ... and {len(rules) - SHOWN} more (the report lists every one)")
    return lines


def _order(rule: dict[str, Any]) -> tuple[int, str]:
    level = str(rule.get("level"))
    rank = LEVELS.index(level) if level in LEVELS else len(LEVELS)
    return rank, str(rule.get("id"))


def _rule_line(rule: dict[str, Any]) -> str:
    head = f"  {rule.get('level')} {rule.get('status')} {rule.get('id')}"
    why = first_reason_line(str(rule.get("reason") or ""))
    return printable(f"{head}: {why}" if why else head)


def printable(text: str) -> str:
    """`text` with every control character but tab written as an escape (`\\x1b`).

    A reason quotes what the target answered; raw ESC sequences from a hostile target could
    move the cursor and rewrite the verdict line printed just above.
    """
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _is_data(text: str) -> bool:
    """An object's repr (a dict, a list, a single quoted string), not a sentence that happens
    to start with a quoted name (`'Content-Type' must be ...`)."""
    if not text:
        return False
    quoted = text[0] in _QUOTES and len(text) > 1 and text.endswith(text[0])
    return text[0] in _DATA_START or quoted


def first_reason_line(reason: str) -> str:
    """The reason's first line without its exception class and rule tag, cut to WIDTH.

    A test that gave a bare object as its assertion message (`assert x == y, record`) makes
    that object's repr the first line: a reader gets `{'RayID': ..., ...}` and not the
    comparison. Then pytest's own `assert ...` line leads, the object after it.
    """
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    text = _NOISE.sub("", first, count=1).strip() or first
    compared = next((line for line in lines[1:] if line.startswith("assert ")), None)
    if compared and _is_data(text):
        text = f"{compared} ({text})"
    return text if len(text) <= WIDTH else text[: WIDTH - 3].rstrip() + "..."
