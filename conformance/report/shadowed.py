"""MUST rules a failing SHOULD/MAY check stopped: judged from a results document alone.

A test that checks several rules stops at its first failing check, so a MUST rule whose checks
come after a failing SHOULD check was not checked, yet reads PASS (the stateful model stops at
its first divergence). `conformance run` records this as a run problem; `merge` judges it again
from the merged cases, since a shard may have been refused for another reason and left it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.results import BROKEN

WHERE = "a test that checks MUST rules"  # the `where` of the run problem, which names it


def shadowed_must_rules(doc: Mapping[str, Any]) -> list[str]:
    """MUST rules recorded by the same test (node id and case) as a SHOULD/MAY case that
    stopped it (FAIL or ERROR: an XPASS test ran to its end, an XFAIL one leaves the rules it
    stopped NOT-CHECKED)."""
    levels = {str(rule.get("id")): str(rule.get("level")) for rule in doc.get("rules") or []}

    def test_of(case: Mapping[str, Any]) -> tuple[str, str] | None:
        nodeid = case.get("nodeid")
        return (str(nodeid), str(case.get("case", ""))) if nodeid else None

    stopped = {
        test_of(case)
        for case in doc.get("cases") or []
        if case.get("status") in BROKEN
        and levels.get(str(case.get("rule_id"))) != "MUST"
        and test_of(case) is not None
    }
    return sorted(
        {
            str(case.get("rule_id"))
            for case in doc.get("cases") or []
            if test_of(case) in stopped and levels.get(str(case.get("rule_id"))) == "MUST"
        }
    )


def problem(shadowed: list[str]) -> dict[str, Any]:
    """The run problem (results.json `run.problems`) naming the stopped MUST rules."""
    names = f"{', '.join(shadowed[:6])}{', ...' if len(shadowed) > 6 else ''}"
    return {"kind": "pytest", "where": WHERE,
            "message": "a SHOULD or MAY check failed inside a test that also checks the MUST "
                       f"rules {names}: their checks after it did not run",
            "rules": []}  # fmt: skip


def is_shadowed_problem(entry: Mapping[str, Any]) -> bool:
    return entry.get("kind") == "pytest" and entry.get("where") == WHERE
