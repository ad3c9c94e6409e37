"""Every black-box rule is break-checked, or the ledger says why not.

A conformance test that cannot fail is a defect. The break-check modules prove, rule by rule,
that the suite reports FAIL against a reference made to break the rule. The rules without such
a proof are listed in not_break_checked.yaml, each with its reason, so the gap is visible and
cannot grow silently: a new rule needs a break-check or a reason, and a reason is dropped once
its rule gets a break-check.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from helpers.break_checks import break_checked_rules

from conformance.model.catalog import load_catalog

LEDGER = Path(__file__).with_name("not_break_checked.yaml")


def _ledger() -> dict[str, str]:
    entries: dict[str, str] = yaml.safe_load(LEDGER.read_text("utf-8")) or {}
    return entries


def _black_box() -> set[str]:
    return {r.id for r in load_catalog().rules.values() if r.testability == "black-box"}


def test_every_black_box_rule_is_break_checked_or_listed() -> None:
    """No black-box rule lacks both a break-check and a reason in the ledger."""
    black_box = _black_box()
    missing = black_box - break_checked_rules(black_box) - set(_ledger())
    assert not missing, f"rules with neither a break-check nor a ledger entry: {sorted(missing)}"


def test_ledger_lists_only_unchecked_black_box_rules_with_reasons() -> None:
    """A ledger entry names a black-box rule that has no break-check, and says why."""
    black_box = _black_box()
    ledger = _ledger()
    unknown = sorted(set(ledger) - black_box)
    stale = sorted(set(ledger) & break_checked_rules(black_box))
    reasonless = sorted(rule for rule, reason in ledger.items() if not str(reason or "").strip())
    assert not unknown, f"not black-box rules of the catalog: {unknown}"
    assert not stale, f"break-checked now, drop from the ledger: {stale}"
    assert not reasonless, f"ledger entries without a reason: {reasonless}"


def test_readme_counts_the_break_checked_rules() -> None:
    """The README's "N of the M black-box rules" figure is the catalog's, not an old count."""
    readme = Path(__file__).resolve().parents[2] / "README.md"
    text = " ".join(readme.read_text("utf-8").split())
    match = re.search(
        r"(\d+) of the (\d+) black-box rules have one; the other (\d+) are listed", text
    )
    assert match, "README.md no longer states how many black-box rules are break-checked"
    black_box = _black_box()
    checked = len(break_checked_rules(black_box))
    assert (int(match[1]), int(match[2])) == (checked, len(black_box))
    assert int(match[3]) == len(_ledger()), "README's 'the other N' is not the ledger's size"
