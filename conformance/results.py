"""Statuses, roll-up and scores of a run: pure functions shared by the recorder and the report.

The rules are those of DESIGN.md "Statuses and scores"; keeping them here, away from pytest,
lets the report recompute or check a results.json without running anything.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any, Protocol

import jsonschema

SCHEMA_VERSION = 1

PASS, FAIL, ERROR, NA, XFAIL, XPASS, UNTESTED = (
    "PASS",
    "FAIL",
    "ERROR",
    "N/A",
    "XFAIL",
    "XPASS",
    "UNTESTED",
)
FLAKY = "FLAKY"  # failed, then passed on a rerun (--rerun): never a pass
CASE_STATUSES = (PASS, FAIL, ERROR, NA, XFAIL, XPASS, FLAKY)
RULE_STATUSES = (*CASE_STATUSES, UNTESTED)
# worst first: a rule takes the worst status among its (non-N/A) cases; a FLAKY case makes the
# rule FLAKY unless a case FAILs (a flaky verdict is a finding; ERROR is the lack of one)
SEVERITY = (FAIL, FLAKY, ERROR, XPASS, XFAIL, PASS)
LEVELS = ("MUST", "SHOULD", "MAY")
FAILING = frozenset({FAIL, ERROR, XPASS})


class RuleLike(Protocol):
    """What roll-up needs of a catalog rule (conformance.plugin.catalog.Rule has it)."""

    @property
    def id(self) -> str: ...
    @property
    def area(self) -> str: ...
    @property
    def level(self) -> str: ...
    @property
    def since(self) -> dt.date | None: ...
    @property
    def until(self) -> dt.date | None: ...
    @property
    def testability(self) -> str: ...
    @property
    def reason(self) -> str | None: ...

    def in_force(self, as_of: dt.date) -> bool: ...


def not_in_force_reason(rule: RuleLike, as_of: dt.date) -> str:
    """Why a rule does not apply, e.g. 'not in force at 2022-05-01 (since 2022-07-01)'."""
    window = []
    if rule.since is not None:
        window.append(f"since {rule.since.isoformat()}")
    if rule.until is not None:
        window.append(f"until {rule.until.isoformat()}")
    return f"not in force at {as_of.isoformat()} ({', '.join(window) or 'never'})"


def static_na_reason(rule: RuleLike, as_of: dt.date, target: str) -> str | None:
    """The N/A reason that holds whatever the tests did, or None when the rule applies."""
    if not rule.in_force(as_of):
        return not_in_force_reason(rule, as_of)
    if rule.testability == "not-testable":
        return f"not testable: {rule.reason or 'no reason given'}"
    if rule.testability == "reference-only" and target != "reference":
        return f"reference-only rule on target {target!r}"
    return None


def worst(statuses: Iterable[str]) -> str:
    """Worst status by SEVERITY, ignoring N/A; N/A when nothing else is there."""
    present = set(statuses)
    for status in SEVERITY:
        if status in present:
            return status
    return NA


def rule_status(
    rule: RuleLike, cases: Sequence[Mapping[str, Any]], as_of: dt.date, target: str
) -> tuple[str, str | None]:
    """Status and reason of one rule from its case records."""
    reason = static_na_reason(rule, as_of, target)
    if reason is not None:
        return NA, reason
    if not cases:
        if rule.testability == "black-box":
            return UNTESTED, "no test names this rule"
        return NA, f"{rule.testability}: {rule.reason or 'no test on this target'}"
    status = worst(str(case["status"]) for case in cases)
    if status == NA:
        messages = [str(c["message"]) for c in cases if c.get("message")]
        return NA, messages[0] if messages else "all cases not applicable"
    if status == PASS:
        return PASS, None
    failing = [str(c["message"]) for c in cases if c["status"] == status and c.get("message")]
    return status, failing[0] if failing else None


def _empty_counts() -> dict[str, Any]:
    return {
        "pass": 0, "fail": 0, "error": 0, "flaky": 0, "xfail": 0, "xpass": 0, "na": 0,
        "untested": 0,
        "score": None, "coverage": None, "_black_box": 0, "_tested": 0,
    }  # fmt: skip


_COUNT_KEY = {PASS: "pass", FAIL: "fail", ERROR: "error", FLAKY: "flaky", XFAIL: "xfail",
              XPASS: "xpass", NA: "na", UNTESTED: "untested"}  # fmt: skip


def summarize(
    rules: Sequence[RuleLike], statuses: Mapping[str, str], as_of: dt.date
) -> dict[str, Any]:
    """`summary` of results.json: counts, score and coverage per area and level; certified.

    score = PASS / (PASS + FAIL + ERROR + FLAKY): a FLAKY rule is judged and is not a pass;
    coverage = tested / black-box rules in force, where a
    rule is tested when a case of it ran (any status but N/A and UNTESTED). Certified means some
    MUST rule passed and every applicable MUST rule in force is PASS (N/A ones do not count:
    not-testable, reference-only elsewhere, surface not offered).
    """
    areas: dict[str, dict[str, dict[str, Any]]] = {}
    certified, any_must_pass = True, False
    for rule in rules:
        status = statuses[rule.id]
        counts = areas.setdefault(rule.area, {}).setdefault(rule.level, _empty_counts())
        counts[_COUNT_KEY[status]] += 1
        if rule.in_force(as_of) and rule.testability == "black-box":
            counts["_black_box"] += 1
            if status not in (NA, UNTESTED):
                counts["_tested"] += 1
        if rule.level == "MUST" and rule.in_force(as_of):
            any_must_pass = any_must_pass or status == PASS
            certified = certified and status in (PASS, NA)
    for levels in areas.values():
        for counts in levels.values():
            judged = counts["pass"] + counts["fail"] + counts["error"] + counts["flaky"]
            counts["score"] = round(counts["pass"] / judged, 4) if judged else None
            black_box, tested = counts.pop("_black_box"), counts.pop("_tested")
            counts["coverage"] = round(tested / black_box, 4) if black_box else None
    return {"certified": certified and any_must_pass, "areas": areas}


def rule_record(rule: Any, status: str, reason: str | None, case_count: int) -> dict[str, Any]:
    """One entry of results.json `rules` (rule: a catalog Rule)."""

    def day(value: dt.date | None) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "id": rule.id, "area": rule.area, "surface": rule.surface,
        "operation": rule.operation, "title": rule.title, "level": rule.level,
        "since": day(rule.since), "until": day(rule.until), "testability": rule.testability,
        "spec": dict(rule.spec or {}), "decision": rule.decision,
        "status": status, "reason": reason, "cases": case_count,
        "source": dict(rule.source) if getattr(rule, "source", None) else None,
    }  # fmt: skip


def roll_up(
    rules: Sequence[Any], cases: Sequence[Mapping[str, Any]], as_of: dt.date, target: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`rules` and `summary` of results.json from the selected rules and all case records."""
    by_rule: dict[str, list[Mapping[str, Any]]] = {}
    for case in cases:
        by_rule.setdefault(str(case["rule_id"]), []).append(case)
    records, statuses = [], {}
    for rule in rules:
        own = by_rule.get(rule.id, [])
        status, reason = rule_status(rule, own, as_of, target)
        statuses[rule.id] = status
        records.append(rule_record(rule, status, reason, len(own)))
    return records, summarize(rules, statuses, as_of)


def load_schema() -> dict[str, Any]:
    text = resources.files("conformance.schemas").joinpath("results.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate(document: Mapping[str, Any]) -> None:
    """Raise jsonschema.ValidationError when `document` is not a valid results.json."""
    jsonschema.Draft202012Validator(load_schema()).validate(document)


def write_results(path: Any, document: Mapping[str, Any]) -> None:
    """Validate, then write atomically and durably (a reader never sees half a file)."""
    import os
    from pathlib import Path

    validate(document)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(document, indent=2) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, target)
