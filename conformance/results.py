"""Statuses, roll-up and scores of a run: pure functions shared by the recorder and the report.

The rules are those of DESIGN.md "Statuses and scores"; keeping them here, away from pytest,
lets the report recompute or check a results.json without running anything.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from importlib import resources
from typing import Any, Protocol

import jsonschema

SCHEMA_VERSION = 1


class Status(StrEnum):
    """The one spelling of a case or rule status (DESIGN.md "Statuses and scores").

    A member is its string, so records, JSON and templates keep comparing plain strings.
    """

    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"
    NA = "N/A"  # does not apply: not in force, surface not offered, not testable here
    XFAIL = "XFAIL"  # a known failure (expectations)
    XPASS = "XPASS"  # a known failure that passed
    FLAKY = "FLAKY"  # failed, then passed on a rerun (--rerun): never a pass
    UNTESTED = "UNTESTED"  # a rule no test names (rules only): never a pass
    # the rule applies but could not be checked here (a midnight window, a precondition the
    # target could not be put in): never a pass, and unlike N/A it blocks the verdict
    NOT_CHECKED = "NOT-CHECKED"

    @property
    def key(self) -> str:
        """Its count key in summary.areas.AREA.LEVEL and its CSS slug: N/A -> na."""
        return self.value.lower().replace("/", "")


PASS, FAIL, ERROR, NA, XFAIL, XPASS, FLAKY, UNTESTED, NOT_CHECKED = (
    Status.PASS, Status.FAIL, Status.ERROR, Status.NA,
    Status.XFAIL, Status.XPASS, Status.FLAKY, Status.UNTESTED, Status.NOT_CHECKED,
)  # fmt: skip
CASE_STATUSES = (PASS, FAIL, ERROR, NA, XFAIL, XPASS, FLAKY, NOT_CHECKED)
RULE_STATUSES = (*CASE_STATUSES, UNTESTED)
# worst first: a rule takes the worst status among its (non-N/A) cases; a FLAKY case makes the
# rule FLAKY unless a case FAILs (a flaky verdict is a finding; ERROR is the lack of one); a
# NOT-CHECKED case keeps the rule from PASS: part of it went unchecked
SEVERITY = (FAIL, FLAKY, ERROR, XPASS, XFAIL, NOT_CHECKED, PASS)
# The report's order of rule statuses: worst first, then what carries no verdict.
DISPLAY_ORDER = (FAIL, FLAKY, ERROR, XPASS, XFAIL, NOT_CHECKED, PASS, UNTESTED, NA)
# The summary's counts in bar order (pass first), each key the status's `key`.
COUNT_ORDER = (PASS, FAIL, ERROR, FLAKY, XPASS, XFAIL, NOT_CHECKED, UNTESTED, NA)
LEVELS = ("MUST", "SHOULD", "MAY")
# The `case` of a record that stands for a test of the rule that did not run in this run
# (plugin/deselected.py): NOT-CHECKED; `merge` drops one when another shard ran the test.
DESELECTED_CASE, UNCOLLECTED_CASE = "deselected", "uncollected"
PLACEHOLDER_CASES = frozenset({DESELECTED_CASE, UNCOLLECTED_CASE})
# A skip whose reason starts so is recorded NOT-CHECKED (conformance.suite.setup_check), and
# so is any skip whose reason does not start with "N/A: " (plugin/case_records.py); only a skip
# that says N/A is N/A.
NOT_CHECKED_PREFIX = "NOT-CHECKED: "

# --- named sets: each says what one use of a set of statuses means -------------------------
# Case statuses that make `conformance run` exit non-zero. FLAKY does not: it passed on a rerun.
EXIT_FAILING = frozenset({FAIL, ERROR, XPASS})
# Statuses someone has to act on (history's "failing", triage, replay): FLAKY is never a pass.
NEEDS_ACTION = frozenset({FAIL, ERROR, XPASS, FLAKY})
# A steady failure: a regression goes to one of these, a fix leaves them, an expectation holds one.
BROKEN = frozenset({FAIL, ERROR})
# Rules `--failed-from` runs again.
RERUN = frozenset({FAIL, ERROR, FLAKY})
# The score's denominator: PASS / (PASS + FAIL + ERROR + FLAKY).
SCORED = frozenset({PASS, FAIL, ERROR, FLAKY})
# A test of the rule ran against the target (the verdict's scope; coverage's "tested").
RAN = frozenset({PASS, FAIL, ERROR, FLAKY, XFAIL, XPASS})
# No verdict at all: not applicable, no test names the rule, or it could not be checked here
# (history skips these: PASS -> NOT-CHECKED -> PASS is no flip, and no regression).
NO_VERDICT = frozenset({NA, UNTESTED, NOT_CHECKED})
# A MUST rule in force in one of these does not block the verdict (N/A does not count;
# UNTESTED and NOT-CHECKED block it: nobody checked the rule).
CERTIFIES = frozenset({PASS, NA})
# Cases whose evidence a history store does not keep: they went as expected.
QUIET = frozenset({PASS, NA, XFAIL})
# Rule statuses `conformance expectations update` keeps or adds (still failing) or drops (fixed).
STILL_FAILING = frozenset({FAIL, ERROR, XFAIL})
FIXED = frozenset({PASS, XPASS})


def count_key(status: str) -> str:
    """`key` of a status given as a string (unknown ones lowercased, like the CSS slugs)."""
    return (status or UNTESTED).lower().replace("/", "")


class RuleLike(Protocol):
    """What roll-up needs of a catalog rule (conformance.model.catalog.Rule has it)."""

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


# the order of the counts as results.json writes them
SUMMARY_ORDER = (PASS, FAIL, ERROR, FLAKY, XFAIL, XPASS, NA, UNTESTED, NOT_CHECKED)


def _empty_counts() -> dict[str, Any]:
    counts: dict[str, Any] = {status.key: 0 for status in SUMMARY_ORDER}
    return counts | {"score": None, "coverage": None, "_black_box": 0, "_tested": 0}


def summarize(
    rules: Sequence[RuleLike], statuses: Mapping[str, str], as_of: dt.date
) -> dict[str, Any]:
    """`summary` of results.json: counts, score and coverage per area and level; certified.

    score = PASS / (PASS + FAIL + ERROR + FLAKY): a FLAKY rule is judged and is not a pass;
    coverage = tested / black-box rules in force, where a rule is tested when a case of it ran
    to a verdict (RAN: not N/A, UNTESTED or NOT-CHECKED). Certified means some MUST rule passed
    and every applicable MUST rule in force is PASS (N/A ones do not count: not-testable,
    reference-only elsewhere, surface not offered; UNTESTED and NOT-CHECKED ones block, as no
    one checked them).
    """
    areas: dict[str, dict[str, dict[str, Any]]] = {}
    certified, any_must_pass = True, False
    for rule in rules:
        status = statuses[rule.id]
        counts = areas.setdefault(rule.area, {}).setdefault(rule.level, _empty_counts())
        counts[Status(status).key] += 1
        if rule.in_force(as_of) and rule.testability == "black-box":
            counts["_black_box"] += 1
            if status in RAN:
                counts["_tested"] += 1
        if rule.level == "MUST" and rule.in_force(as_of):
            any_must_pass = any_must_pass or status == PASS
            certified = certified and status in CERTIFIES
    for levels in areas.values():
        for counts in levels.values():
            judged = sum(counts[status.key] for status in SCORED)
            counts["score"] = round(counts["pass"] / judged, 4) if judged else None
            black_box, tested = counts.pop("_black_box"), counts.pop("_tested")
            counts["coverage"] = round(tested / black_box, 4) if black_box else None
            if not counts[NOT_CHECKED.key]:  # written when there is one: older files stay alike
                del counts[NOT_CHECKED.key]
    return {"certified": certified and any_must_pass, "areas": areas}


# The three verdicts a run can print. NO VERDICT: no MUST rule in force was judged, blocked or
# known to fail (a selection of SHOULD rules only, or every MUST rule N/A): nothing was certified
# and no MUST rule failed, so it is neither a certificate nor a refusal of one. (Not to be
# confused with the status set NO_VERDICT above: statuses that carry no verdict of a rule.)
CERTIFIED_VERDICT, NOT_CERTIFIED_VERDICT, NO_VERDICT_VERDICT = (
    "CERTIFIED", "NOT CERTIFIED", "NO VERDICT",
)  # fmt: skip


def verdict(doc: Mapping[str, Any]) -> str:
    """The run's verdict at MUST level, from results.json's summary and run problems.

    `summary.certified` stays the boolean the schema defines; this only tells a run that had
    nothing to certify from one that was refused, so the printed verdict and the exit status
    of `conformance run` can agree (a run of SHOULD rules that all pass must not read NOT
    CERTIFIED and exit 0)."""
    summary = doc.get("summary") or {}
    if (doc.get("run") or {}).get("problems"):
        return NOT_CERTIFIED_VERDICT  # whatever the rules say (a file edited, an old merge)
    if summary.get("certified"):
        return CERTIFIED_VERDICT
    for levels in (summary.get("areas") or {}).values():
        must = (levels or {}).get("MUST") or {}
        if any(int(must.get(status.key) or 0) for status in Status if status is not NA):
            return NOT_CERTIFIED_VERDICT
    return NO_VERDICT_VERDICT


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


@functools.cache
def load_schema() -> dict[str, Any]:
    """results.schema.json as shipped with the package (read once per process)."""
    text = resources.files("conformance.schemas").joinpath("results.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    """The one validator of results files: the writer's check and the report's warnings."""
    return jsonschema.Draft202012Validator(load_schema())


def validate(document: Mapping[str, Any]) -> None:
    """Raise jsonschema.ValidationError when `document` is not a valid results.json."""
    _validator().validate(document)


def schema_problems(document: Mapping[str, Any], limit: int = 5) -> list[str]:
    """The first `limit` schema violations of a results document, each as 'path: message'."""
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    return [
        f"{'/'.join(str(p) for p in err.absolute_path) or '(root)'}: {err.message}"
        for err in errors[:limit]
    ]


def write_results(path: Any, document: Mapping[str, Any]) -> None:
    """Validate, then write atomically and durably (a reader never sees half a file)."""
    from conformance import atomic_file

    validate(document)
    atomic_file.write_text(path, json.dumps(document, indent=2) + "\n")
