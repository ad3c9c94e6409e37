"""`conformance merge`: results files of one run split over many machines, made one again.

Shards of one run (same target, same as-of date, same catalog) merge into one results.json
whose cases are the union and whose rules and summary are rolled up again by
conformance/results.py, exactly as if one machine had run everything. Files of different
targets or dates are not one run: merging them would invent a target that does not exist, so
they are refused unless the caller asks for a matrix, where each (target, date) group is merged
on its own and written beside the others for `conformance report`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance import results
from conformance.report import shadowed
from conformance.report.load import Results
from conformance.results import PLACEHOLDER_CASES

Key = tuple[str, str]  # (target, as_of)
NOTHING_CHECKED = "nothing-checked"  # the run problem of a run that checked no rule
NOTHING_CHECKED_MESSAGE = "nothing was checked: every rule of the merged files was N/A"


class MergeError(ValueError):
    """Inputs that cannot be one run; the message says which files differ and how."""


@dataclass(frozen=True)
class RecordRule:
    """A catalog rule rebuilt from a results record, for the roll-up (RuleLike)."""

    id: str
    area: str
    surface: str
    operation: str | None
    title: str
    level: str
    since: dt.date | None
    until: dt.date | None
    testability: str
    reason: str | None
    spec: dict[str, Any]
    decision: str | None

    def in_force(self, as_of: dt.date) -> bool:
        return (self.since is None or self.since <= as_of) and (
            self.until is None or as_of < self.until
        )

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> RecordRule:
        def day(value: Any) -> dt.date | None:
            return dt.date.fromisoformat(value) if value else None

        testability = str(record["testability"])
        # the record's reason is the status reason; recover the catalog's testability reason
        reason = record.get("reason")
        for prefix in ("not testable: ", f"{testability}: "):
            if isinstance(reason, str) and reason.startswith(prefix):
                reason = reason.removeprefix(prefix)
        return cls(
            id=str(record["id"]), area=str(record["area"]), surface=str(record["surface"]),
            operation=record.get("operation"), title=str(record["title"]),
            level=str(record["level"]), since=day(record.get("since")),
            until=day(record.get("until")), testability=testability,
            reason=reason if testability != "black-box" else None,
            spec=dict(record.get("spec") or {}), decision=record.get("decision"),
        )  # fmt: skip


def run_key(doc: Results) -> Key:
    return str(doc["run"].get("target")), str(doc["run"].get("as_of"))


def group(docs: Sequence[Results]) -> dict[Key, list[int]]:
    """Indexes of the inputs per (target, as_of), in input order."""
    groups: dict[Key, list[int]] = {}
    for index, doc in enumerate(docs):
        groups.setdefault(run_key(doc), []).append(index)
    return groups


def _same(docs: Sequence[Results], names: Sequence[str], field: str) -> Any:
    values = [doc["run"].get(field) for doc in docs]
    if any(v != values[0] for v in values):
        listed = ", ".join(f"{n}: {v!r}" for n, v in zip(names, values, strict=True))
        raise MergeError(f"results differ in run.{field} ({listed}); they are not one run")
    return values[0]


def _flag_union(docs: Sequence[Results], name: str) -> list[str]:
    """A filter flag of the merged run: empty (everything) when any shard ran unfiltered."""
    lists = [list(doc["run"].get("flags", {}).get(name, [])) for doc in docs]
    if any(not values for values in lists):
        return []
    return sorted({v for values in lists for v in values})


def _cases(docs: Sequence[Results]) -> tuple[list[dict[str, Any]], int]:
    """Union of the cases; the same case in two shards keeps its worst status. A placeholder
    (a test a shard left out: NOT-CHECKED, case "deselected" or "uncollected") goes when
    another shard has a real record of that test for that rule: it ran there."""
    kept: dict[tuple[str, str, str], dict[str, Any]] = {}
    duplicates = 0
    for doc in docs:
        for case in doc.get("cases", []):
            key = (str(case["rule_id"]), str(case["nodeid"]), str(case.get("case", "")))
            old = kept.get(key)
            if old is None:
                kept[key] = case
                continue
            duplicates += 1
            if results.worst([old["status"], case["status"]]) != old["status"]:
                kept[key] = case
    ran = [(rule_id, nodeid) for rule_id, nodeid, name in kept if name not in PLACEHOLDER_CASES]
    merged = [
        case
        for (rule_id, nodeid, name), case in kept.items()
        if name not in PLACEHOLDER_CASES or not _ran_elsewhere(rule_id, nodeid, ran)
    ]
    return merged, duplicates


def _ran_elsewhere(rule_id: str, nodeid: str, ran: Sequence[tuple[str, str]]) -> bool:
    """A real record of the placeholder's test: the same node id, or one under it (a
    parametrized case `f[x]`, a test of an uncollected module or class `path::f`)."""
    return any(
        rid == rule_id and (nid == nodeid or nid.startswith((f"{nodeid}[", f"{nodeid}::")))
        for rid, nid in ran
    )


def _rules(docs: Sequence[Results]) -> list[RecordRule]:
    seen: dict[str, RecordRule] = {}
    for doc in docs:
        for record in doc.get("rules", []):
            seen.setdefault(str(record["id"]), RecordRule.from_record(record))
    return list(seen.values())


def merge_run(docs: Sequence[Results], names: Sequence[str], run_id: str | None = None) -> Results:
    """One results document from shards of one run; MergeError when they are not one run."""
    if not docs:
        raise MergeError("nothing to merge")
    target, as_of = _same(docs, names, "target"), _same(docs, names, "as_of")
    catalog_hash = _same(docs, names, "catalog_hash")
    profile = _same([{"run": d["run"].get("flags", {})} for d in docs], names,
                    "reference_profile")  # fmt: skip
    rules = _rules(docs)
    cases, _ = _cases(docs)
    known = {rule.id for rule in rules}
    cases = [case for case in cases if case["rule_id"] in known]
    records, summary = results.roll_up(rules, cases, dt.date.fromisoformat(as_of), target)
    runs = [doc["run"] for doc in docs]
    shas = {run.get("git_sha") for run in runs}
    document: Results = {
        "schema_version": results.SCHEMA_VERSION,
        "run": {
            "run_id": run_id or f"merged-{safe(target)}-{as_of}", "target": target,
            "as_of": as_of, "suite_version": str(runs[0].get("suite_version", "unknown")),
            "catalog_hash": catalog_hash, "git_sha": shas.pop() if len(shas) == 1 else None,
            "started": min(str(run["started"]) for run in runs),
            "finished": max(str(run["finished"]) for run in runs),
            "flags": {"rule": _flag_union(docs, "rule"), "area": _flag_union(docs, "area"),
                      "reference_profile": dict(profile or {})},
        },
        "cases": cases,
        "rules": records,
        "summary": summary,
    }  # fmt: skip
    problems: list[dict[str, Any]] = []
    checked_nothing: list[dict[str, Any]] = []
    for run in runs:
        for problem in run.get("problems") or []:
            # a shard that checked nothing says nothing of the merged run, which is judged
            # by its own counts; every other problem refuses the merged verdict as it
            # refused the shard's
            if problem.get("kind") == NOTHING_CHECKED:
                checked_nothing.append(problem)
            elif shadowed.is_shadowed_problem(problem):
                continue  # judged again below from the merged cases
            elif problem not in problems:
                problems.append(problem)
    # judged by the merged cases: a shard refused already (a MUST rule it left UNTESTED) did
    # not record the MUST rules a failing SHOULD check stopped, yet the merge must refuse them
    stopped = shadowed.shadowed_must_rules(document)
    if stopped:
        problems.append(shadowed.problem(stopped))
    # judged by the merged counts: a run that checked nothing is refused as `conformance run`
    # refuses it unsharded (unless a MUST rule that blocks refuses it already)
    if (
        not problems
        and not _ran_any(records)
        and results.verdict(document) != results.NOT_CERTIFIED_VERDICT
    ):
        problems.append(checked_nothing[0] if checked_nothing else _nothing_checked_problem())
    if problems:
        document["run"]["problems"] = problems
        summary["certified"] = False
    return document


def _nothing_checked_problem() -> dict[str, Any]:
    return {"kind": NOTHING_CHECKED, "where": "merge", "message": NOTHING_CHECKED_MESSAGE,
            "rules": []}  # fmt: skip


def _ran_any(records: Sequence[dict[str, Any]]) -> bool:
    """A rule of the merged run was checked: a case of it ran to a verdict (RAN)."""
    return any(record.get("status") in results.RAN for record in records)


def duplicate_count(docs: Sequence[Results]) -> int:
    return _cases(docs)[1]


def safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip(".-") or "run"


def matrix_file_name(key: Key) -> str:
    """`<target>_<as-of>.json`: one file per column of the matrix."""
    return f"{safe(key[0])}_{key[1]}.json"


def refuse_mixed(groups: dict[Key, list[int]], names: Sequence[str]) -> str:
    """The message for inputs of several runs merged without --matrix."""
    lines = [f"  {target} @ {as_of}: {', '.join(names[i] for i in indexes)}"
             for (target, as_of), indexes in groups.items()]  # fmt: skip
    return (
        "results of different targets or as-of dates are not one run and cannot be merged:\n"
        + "\n".join(lines)
        + "\nuse --matrix to merge each (target, date) group on its own into a directory "
        "for `conformance report DIR`"
    )
