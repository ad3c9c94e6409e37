"""Triage: failing rules grouped by their likely shared cause, biggest group first.

An implementer fixes causes, not rules. Each failing rule gets candidate cause keys read from
its failing cases alone (message, last exchange, operation); a rule joins the most specific key
it shares with another failing rule, so one fix is expected to flip the whole group. A rule
that shares nothing stands alone. Heuristic by nature: the label says what the rules share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

TRIAGED = ("FAIL", "ERROR", "FLAKY", "XPASS")
# most specific first: a rule goes to the first of its keys that another rule shares
PRIORITY = ("setup", "exception", "code", "header", "served", "message", "operation")
_CODE = re.compile(r"<Code>([^<]{1,64})</Code>|\"code\"\s*:\s*\"?([\w.-]{1,64})")
_EXC = re.compile(r"^(?:E\s+)?([A-Z]\w*(?:Error|Exception|Timeout|Failure))\b:?\s*(.*)")
_HEADER = re.compile(
    r"\b(x-amz-[\w-]+|cf-[\w-]+|access-control-[\w-]+|content-[\w-]+|etag|"
    r"last-modified|if-[\w-]+|location|range)\b",
    re.IGNORECASE,
)
_EXPECTS_REFUSAL = re.compile(r"\b(40[0-9]|41[0-9]|501)\b|refus|reject|denied|not allowed")
_VALUES = re.compile(r"'[^']*'|\"[^\"]*\"|\b[0-9a-f]{8,}\b|\b\d+\b|ec-[\w-]+")


@dataclass
class Group:
    key: tuple[str, ...]
    label: str
    rules: list[dict[str, Any]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.rules)

    @property
    def kind(self) -> str:
        return self.key[0]


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def shape(text: str) -> str:
    """A message with its values masked, so two failures of one kind read the same."""
    return re.sub(r"\s+", " ", _VALUES.sub("…", text)).strip()[:120]


def _last(case: dict[str, Any]) -> dict[str, Any]:
    evidence = [e for e in case.get("evidence") or [] if e.get("url")]
    return evidence[-1] if evidence else {}


def cause_keys(
    rule: dict[str, Any], cases: list[dict[str, Any]]
) -> list[tuple[tuple[str, ...], str]]:
    """Candidate (key, label) pairs of one failing rule, most specific first."""
    op = str(rule.get("operation") or rule.get("surface") or "?")
    found: dict[tuple[str, ...], str] = {}
    for case in cases:
        message = str(case.get("message") or "")
        first = _first_line(message)
        last = _last(case)
        status = last.get("status")
        if first.startswith(("setup:", "undecided:")):
            text = shape(first.removeprefix("setup:").strip())
            found[("setup", text)] = f"a setup step fails: {text}"
        exc = _EXC.match(first)
        if case.get("status") == "ERROR" and exc:
            text = shape(exc.group(2))[:60]
            found[("exception", exc.group(1), text)] = f"{exc.group(1)}: {text}"
        code = _CODE.search(str(last.get("body_excerpt") or ""))
        if isinstance(status, int) and status >= 400 and code:
            name = code.group(1) or code.group(2)
            found[("code", op, f"{status} {name}")] = f"{op} answers {status} {name}"
        for header in dict.fromkeys(h.lower() for h in _HEADER.findall(first)):
            family = "cf-*" if header.startswith("cf-") else header
            found[("header", op, family)] = f"{op}: {family} not as the spec says"
        if isinstance(status, int) and status < 300 and _EXPECTS_REFUSAL.search(first.lower()):
            found[("served", op)] = f"{op} serves ({status}) what the spec refuses"
        if first:
            found[("message", shape(first))] = f"same failure: {shape(first)}"
        found[("operation", op)] = f"other failures of {op}"
    order = {kind: n for n, kind in enumerate(PRIORITY)}
    return sorted(found.items(), key=lambda item: order[item[0][0]])


def triage(doc: dict[str, Any]) -> list[Group]:
    """Groups of the failing rules of a results document, biggest first; every failing rule
    is in exactly one group."""
    cases_by_rule: dict[str, list[dict[str, Any]]] = {}
    for case in doc.get("cases", []):
        if case.get("status") in TRIAGED:
            cases_by_rule.setdefault(str(case.get("rule_id")), []).append(case)
    failing = [r for r in doc.get("rules", []) if r.get("status") in TRIAGED]
    keys = {str(r["id"]): cause_keys(r, cases_by_rule.get(str(r["id"]), [])) for r in failing}
    counts: dict[tuple[str, ...], int] = {}
    for pairs in keys.values():
        for key, _ in pairs:
            counts[key] = counts.get(key, 0) + 1
    groups: dict[tuple[str, ...], Group] = {}
    for rule in failing:
        pairs = keys[str(rule["id"])]
        shared = [(k, label) for k, label in pairs if counts[k] > 1]
        if shared:
            best = min(PRIORITY.index(k[0]) for k, _ in shared)
            key, label = max(
                ((k, lab) for k, lab in shared if PRIORITY.index(k[0]) == best),
                key=lambda pair: counts[pair[0]],
            )
        elif pairs:
            key, label = ("own", str(rule["id"])), pairs[0][1]
        else:
            key, label = ("own", str(rule["id"])), str(rule.get("reason") or "no case recorded")
        groups.setdefault(key, Group(key, label)).rules.append(rule)
    return sorted(
        groups.values(),
        key=lambda g: (-g.size, PRIORITY.index(g.kind) if g.kind in PRIORITY else 99, g.label),
    )


def top_share(groups: list[Group], top: int = 3) -> tuple[int, int]:
    """(rules the `top` biggest groups explain, all failing rules)."""
    return sum(g.size for g in groups[:top]), sum(g.size for g in groups)
