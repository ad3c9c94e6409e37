"""Triage: failing rules grouped by their likely shared cause, biggest group first.

An implementer fixes causes, not rules. Each failing rule is read from its failing case alone
(message, last exchange, operation, id) and put in one cause (a failing setup it shares, an
exception, conditional headers not honoured, a refusal the spec wants that the target does not
make, a server error, extension headers ignored, another error code, a response header) and,
inside it, in one finer group (the rule family, operation, header or code), so that one fix is
expected to flip a finer group and one kind of work the whole cause. Heuristic by nature: each
label says what its rules share, and the flat list stays next to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from conformance.results import ERROR, NEEDS_ACTION

TRIAGED = NEEDS_ACTION
CAUSES = {
    "setup": "A setup step the rules need does not hold (they are not judged until it does)",
    "exception": "The test stops on an exception",
    "conditional": "Conditional request headers (If-Match, If-None-Match, If-(Un)Modified-Since) "
    "are ignored or misread",
    "served": "Requests the spec refuses are served (2xx): a check is missing",
    "crash": "A server error (5xx) where the spec has an answer",
    "ext": "The provider's extension request headers (cf-*) are ignored",
    "code": "Another status or error code than the spec's",
    "header": "A response header is missing or has another value",
}
_ANSWERED = re.compile(r"\banswered (\d{3})(?: ([A-Z]\w+))?|\bstatus (\d{3})\b")
_EXPECTED = re.compile(r"\bexpected (\d{3})(?: ([A-Z]\w+))?")
_REFUSAL = re.compile(r"expected a (refusal|4xx)|expected 4xx|refus|reject")
_CODE = re.compile(r"<Code>([^<]{1,64})</Code>")
_EXC = re.compile(r"^(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception|Timeout|Failure|Failed))\b:?\s*(.*)")
_RESPONSE_HEADER = re.compile(
    r"\b(x-amz-[\w-]+|access-control-[\w-]+|content-type|content-range|etag|last-modified|"
    r"location)\b",
    re.IGNORECASE,
)
_CONDITIONS = "(match|none-match|modified-since|unmodified-since)"
_CONDITIONAL = re.compile(rf"^(if-{_CONDITIONS}|x-amz-copy-source-if-.*|cf-.*-if-{_CONDITIONS})$")
_VALUES = re.compile(r"'[^']*'|\"[^\"]*\"|\b[0-9a-f]{8,}\b|\b\d+\b|ec-[\w-]+|https?://\S+")


@dataclass
class Group:
    key: tuple[str, ...]
    label: str
    rules: list[dict[str, Any]] = field(default_factory=list)
    parts: list[Group] = field(default_factory=list)  # finer groups of a cause

    @property
    def size(self) -> int:
        return len(self.rules)

    @property
    def kind(self) -> str:
        return self.key[0]


def shape(text: str) -> str:
    """A message with its values masked, so two failures of one kind read the same."""
    return re.sub(r"\s+", " ", _VALUES.sub("…", text)).strip()[:120]


def _first_line(text: str | None) -> str:
    stripped = (text or "").strip()
    return stripped.splitlines()[0] if stripped else ""


def _last(case: dict[str, Any]) -> dict[str, Any]:
    evidence = [e for e in case.get("evidence") or [] if e.get("url")]
    return evidence[-1] if evidence else {}


def _answered(first: str, last: dict[str, Any]) -> tuple[int | None, str | None]:
    """The status (and error code) the failing request got: as the message says, else the
    last exchange (which may be a cleanup request, so the message comes first)."""
    found = _ANSWERED.search(first)
    if found:
        status = found.group(1) or found.group(3)
        return int(status), found.group(2)
    status = last.get("status")
    code = _CODE.search(str(last.get("body_excerpt") or ""))
    return (status if isinstance(status, int) else None), (code.group(1) if code else None)


def classify(rule: dict[str, Any], case: dict[str, Any]) -> tuple[str, tuple[str, ...], str]:
    """(cause, finer key, finer label) of one failing rule from its first failing case."""
    rule_id = str(rule.get("id") or "")
    family = rule_id.split(".")[1] if rule_id.count(".") >= 2 else rule_id
    op = str(rule.get("operation") or rule.get("surface") or "?")
    message = str(case.get("message") or "")
    first, last = _first_line(message), _last(case)
    sent = {str(k).lower() for k in (last.get("request_headers") or {})}
    status, code = _answered(first, last)
    if "SetupFailed" in first or first.startswith(("setup:", "undecided:")):
        text = shape(first.split("not checked:", 1)[-1].removeprefix("setup:"))
        return "setup", (text,), text
    exc = _EXC.match(first)
    if case.get("status") == ERROR:
        name = exc.group(1) if exc else "error"
        text = shape(exc.group(2) if exc else first)[:80]
        return "exception", (name, text), f"{name}: {text}"
    conditional = sorted(h for h in sent if _CONDITIONAL.match(h))
    if conditional or "PreconditionFailed" in first or "Not Modified" in first:
        return "conditional", (op,), f"{op}: {', '.join(conditional) or 'entry conditions'}"
    expected = _EXPECTED.search(first)
    wants_refusal = (
        (expected is not None and int(expected.group(1)) >= 400)
        or bool(_REFUSAL.search(first.lower()))
        or rule_id.endswith(("-refused", "-rejected"))
    )
    if status is not None and 200 <= status < 300 and wants_refusal:
        return "served", (family,), family
    if status is not None and status >= 500:
        return "crash", (op,), f"{op} answers {status}"
    ext = sorted(h for h in sent if h.startswith("cf-"))
    if ext:
        return "ext", (op,), f"{op}: {', '.join(ext)}"
    if status is not None and status >= 400:
        answer = f"{status} {code}" if code else str(status)
        return "code", (op, answer), f"{op} answers {answer}"
    header = _RESPONSE_HEADER.search(first)
    if header:
        name = header.group(1).lower()
        name = "x-amz-checksum-*" if name.startswith("x-amz-checksum-") else name
        return "header", (op, name), f"{op}: {name}"
    text = shape(first.removeprefix("AssertionError: ").removeprefix("AssertionError"))
    return f"op:{op}", (text,), text or "no message"


def _served_label(part: Group) -> str:
    """`family: accepted where the spec answers A, B`: the codes the tests expected."""
    codes: list[str] = []
    for rule in part.rules:
        found = _EXPECTED.search(_first_line(rule.get("reason")))
        if found and found.group(2) not in (None, "None", *codes):
            codes.append(found.group(2))
    where = f" where the spec answers {', '.join(codes)}" if codes else ""
    return f"{part.label}: accepted{where}"


def triage(doc: dict[str, Any]) -> list[Group]:
    """Causes of the failing rules of a results document, biggest first, each with its finer
    groups (biggest first); every failing rule is in exactly one of each."""
    first_case: dict[str, dict[str, Any]] = {}
    for case in doc.get("cases", []):
        if case.get("status") in TRIAGED:
            first_case.setdefault(str(case.get("rule_id")), case)
    causes: dict[str, Group] = {}
    for rule in doc.get("rules", []):
        if rule.get("status") not in TRIAGED:
            continue
        case = first_case.get(str(rule.get("id")), {"message": rule.get("reason")})
        cause, key, label = classify(rule, case)
        title = CAUSES.get(cause) or f"Other failures of {cause.removeprefix('op:')}"
        group = causes.setdefault(cause, Group((cause,), title))
        group.rules.append(rule)
        part = next((p for p in group.parts if p.key == (cause, *key)), None)
        if part is None:
            part = Group((cause, *key), label)
            group.parts.append(part)
        part.rules.append(rule)
    for group in causes.values():
        group.parts.sort(key=lambda p: (-p.size, p.label))
        if group.kind == "served":
            for part in group.parts:
                part.label = _served_label(part)
    return sorted(causes.values(), key=lambda g: (-g.size, g.label))


def top_share(groups: list[Group], top: int = 3) -> tuple[int, int]:
    """(rules the `top` biggest groups explain, all failing rules)."""
    return sum(g.size for g in groups[:top]), sum(g.size for g in groups)


def finest(groups: list[Group]) -> list[Group]:
    """The finer groups of every cause, biggest first (one fix each, as far as one can tell)."""
    return sorted((p for g in groups for p in g.parts), key=lambda p: (-p.size, p.label))
