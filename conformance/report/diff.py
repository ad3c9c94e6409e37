"""Run-to-run comparison for nightly regressions: what broke, what got fixed, what changed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from conformance.report.load import Results
from conformance.results import BROKEN, CERTIFIED_VERDICT, FLAKY, NA, NOT_CHECKED, PASS, verdict

# statuses whose first case message a change shows
MESSAGED = BROKEN | {FLAKY, NOT_CHECKED}
# what decides whether a rule applies, besides the target's answers and the date: when both
# runs share them, a MUST rule PASS -> N/A that is still in force was dropped from the
# certificate by the target's declaration (a surface, a second account, a reference profile)
SAME_APPLICABILITY = ("target", "catalog_hash")
SAME_FLAGS = ("compat_date", "compat_flag")
# N/A reasons the as-of date decides (a nightly `today` run moves it every night): the date
# moved, the certificate did not narrow. A rule outside its window (results.not_in_force_reason)
# and a test's own dated skip (the store model's "... in force from <date>", "... not in force
# before <date>")
DATE_DRIVEN = re.compile(r"^not in force at |\bin force (from|before) \d{4}-\d{2}-\d{2}")
# a compat N/A (applicability.compat_na_reason, the bindings tests' "compat date ...") is the
# date's doing too when neither run pinned --compat-date: the compat date is then the as-of date
COMPAT_DRIVEN = re.compile(r"^(compatibility flag |compat date )")


@dataclass
class Change:
    rule_id: str
    title: str
    level: str
    old: str | None
    new: str | None
    message: str | None = None  # the new run's first failing message, when there is one


@dataclass
class Diff:
    old_run: dict[str, Any]
    new_run: dict[str, Any]
    regressions: list[Change] = field(default_factory=list)
    fixes: list[Change] = field(default_factory=list)
    flaky: list[Change] = field(default_factory=list)  # became FLAKY
    # became NOT-CHECKED: no regression (nothing failed), no pass either (nothing was checked)
    not_checked: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)  # any other status change
    added: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    # MUST rules PASS under the old certificate and absent from the new run although it could
    # hold them (same catalog, or a --rule/--area filter), or N/A in it while still in force
    # (same compat state, target and catalog): the certificate covers less
    left_out: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (old, new) overall verdict when it changed: a run problem or a MUST rule turned UNTESTED
    # or NOT-CHECKED loses the certificate without any rule going PASS -> FAIL
    verdicts: tuple[str, str] | None = None

    @property
    def lost_certificate(self) -> bool:
        return self.verdicts is not None and self.verdicts[0] == CERTIFIED_VERDICT

    @property
    def has_regressions(self) -> bool:
        """A rule PASS/FLAKY -> FAIL/ERROR."""
        return bool(self.regressions)

    @property
    def narrowed_certificate(self) -> bool:
        """Both runs certified, the new one for fewer MUST rules (left out, not fixed away)."""
        return bool(self.left_out) and not self.lost_certificate

    @property
    def fails(self) -> bool:
        """A rule regressed or the certificate was lost or narrowed: `conformance diff` exits 1."""
        return self.has_regressions or self.lost_certificate or bool(self.left_out)

    def verdict_line(self) -> str | None:
        return f"verdict: {self.verdicts[0]} → {self.verdicts[1]}" if self.verdicts else None


def _first_message(doc: Results, rule_id: str) -> str | None:
    for case in doc.get("cases", []):
        status = case.get("status")
        if case.get("rule_id") == rule_id and status in MESSAGED and case.get("message"):
            return str(case["message"])
    return None


def diff_results(old: Results, new: Results) -> Diff:
    """Compare rule statuses; a regression is PASS (or FLAKY) -> FAIL or ERROR (DESIGN.md);
    a rule that turned FLAKY is listed on its own: not a pass any more, not steadily broken."""
    old_rules = {str(r.get("id")): r for r in old.get("rules", [])}
    new_rules = {str(r.get("id")): r for r in new.get("rules", [])}
    result = Diff(old.get("run") or {}, new.get("run") or {})
    if verdict(old) != verdict(new):
        result.verdicts = (verdict(old), verdict(new))
    for key, label in (("target", "targets"), ("as_of", "as-of dates")):
        a, b = result.old_run.get(key), result.new_run.get(key)
        if a != b:
            result.notes.append(f"{label} differ: {a} → {b}")
    for rid, rule in new_rules.items():
        title, level = str(rule.get("title", "")), str(rule.get("level", ""))
        status = str(rule.get("status"))
        if rid not in old_rules:
            result.added.append(Change(rid, title, level, None, status))
            continue
        before = str(old_rules[rid].get("status"))
        if before == status:
            continue
        change = Change(rid, title, level, before, status, _first_message(new, rid))
        if before in (PASS, FLAKY) and status in BROKEN:
            result.regressions.append(change)
        elif status == FLAKY:
            result.flaky.append(change)
        elif status == NOT_CHECKED:
            result.not_checked.append(change)
        elif before in BROKEN and status == PASS:
            result.fixes.append(change)
        else:
            result.other.append(change)
    same_catalog = result.old_run.get("catalog_hash") == result.new_run.get("catalog_hash")
    flags = result.new_run.get("flags") or {}
    filtered = bool(flags.get("rule") or flags.get("area"))
    for key in ("rule", "area"):
        a, b = (result.old_run.get("flags") or {}).get(key) or [], flags.get(key) or []
        if a != b:
            result.notes.append(f"--{key} selections differ: {a or 'all'} → {b or 'all'}")
    certified = verdict(old) == CERTIFIED_VERDICT
    if certified and _same_applicability(result.old_run, result.new_run):
        for change in [c for c in result.other if (c.old, c.new, c.level) == (PASS, NA, "MUST")]:
            reason = str(new_rules[change.rule_id].get("reason") or "")
            if _follows_the_date(reason, result.old_run, result.new_run):
                continue
            change.message = reason or None
            result.other.remove(change)
            result.left_out.append(change)
    for rid, rule in old_rules.items():
        if rid not in new_rules:
            level, status = str(rule.get("level", "")), str(rule.get("status"))
            change = Change(rid, str(rule.get("title", "")), level, status, None)
            covered = certified and level == "MUST" and status == PASS
            if covered and (same_catalog or filtered):
                result.left_out.append(change)
            else:
                result.removed.append(change)
    return result


def _follows_the_date(reason: str, old_run: dict[str, Any], new_run: dict[str, Any]) -> bool:
    """Whether a PASS -> N/A came from the as-of date rather than the target's declaration."""
    if DATE_DRIVEN.search(reason):
        return True
    moved = old_run.get("as_of") != new_run.get("as_of")
    unpinned = not (new_run.get("flags") or {}).get("compat_date")
    return moved and unpinned and bool(COMPAT_DRIVEN.match(reason))


def _same_applicability(old_run: dict[str, Any], new_run: dict[str, Any]) -> bool:
    old_flags, new_flags = old_run.get("flags") or {}, new_run.get("flags") or {}
    return all(old_run.get(k) == new_run.get(k) for k in SAME_APPLICABILITY) and all(
        old_flags.get(k) == new_flags.get(k) for k in SAME_FLAGS
    )


SECTIONS = (
    ("regressions", "Regressions (PASS → FAIL/ERROR)"),
    ("fixes", "Fixes (FAIL/ERROR → PASS)"),
    ("flaky", "Became flaky (passed only on a rerun)"),
    ("not_checked", "Not checked in the new run (could not be checked there; not a pass)"),
    ("other", "Other status changes"),
    ("added", "New rules"),
    ("removed", "Removed rules"),
    ("left_out", "Left out of the new run or N/A in it (MUST rules the old certificate covered)"),
)


def _run_name(run: dict[str, Any]) -> str:
    return f"{run.get('target')} @ {run.get('as_of')} ({run.get('run_id')})"


def _headline(d: Diff) -> str:
    counts = ", ".join(
        f"{len(getattr(d, key))} {key.replace('_', '-')}"
        for key, _ in SECTIONS
        if key not in ("not_checked", "left_out") or getattr(d, key)  # named when there is one
    )
    lost = "CERTIFICATE LOST; " if d.lost_certificate else ""
    if d.narrowed_certificate:
        lost = f"CERTIFICATE NARROWED ({len(d.left_out)} MUST rules left out or N/A); "
    return lost + ("REGRESSED: " if d.has_regressions else "no regressions: ") + counts


def format_text(d: Diff) -> str:
    """The verdict change first (when there is one), the runs, each section, the headline."""
    lines = [line for line in [d.verdict_line()] if line]
    lines += [f"old: {_run_name(d.old_run)}", f"new: {_run_name(d.new_run)}"]
    lines += [f"note: {n}" for n in d.notes]
    for key, heading in SECTIONS:
        changes: list[Change] = getattr(d, key)
        if not changes:
            continue
        lines.append(f"\n{heading}: {len(changes)}")
        for c in changes:
            lines.append(f"  {c.rule_id:<50} {c.old or '-':>8} -> {c.new or '-':<8} {c.level}")
            if c.message:
                lines.append(f"      {c.message}")
    lines.append("\n" + _headline(d))
    return "\n".join(lines)


def _md(text: str) -> str:
    """Table-cell safe: pipes and newlines break the row, and markup would be rendered."""
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def format_markdown(d: Diff) -> str:
    lines = [
        f"## Conformance diff: {_md(str(d.new_run.get('target')))}",
        "",
        *([f"**{d.verdict_line()}**", ""] if d.verdicts else []),
        f"- old: `{_md(_run_name(d.old_run))}`",
        f"- new: `{_md(_run_name(d.new_run))}`",
        *[f"- note: {_md(n)}" for n in d.notes],
        "",
        f"**{_headline(d)}**",
    ]
    for key, heading in SECTIONS:
        changes: list[Change] = getattr(d, key)
        if not changes:
            continue
        lines += [
            "",
            f"### {heading}",
            "",
            "| rule | level | old | new | message |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| `{_md(c.rule_id)}` | {c.level} | {c.old or '—'} | {c.new or '—'} | "
            f"{_md(c.message or '')} |"
            for c in changes
        ]
    return "\n".join(lines) + "\n"
