"""N/A at setup: a test whose rules do not apply to this run is skipped with the reason.

The reason starts with "N/A: " so that the recorder, and a reader of plain pytest output, can
tell a not-applicable rule from an ordinary skip.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from conformance.plugin.attribution import UNCHECKED_RULE
from conformance.plugin.collection import RULES_KEY
from conformance.plugin.options import Options
from conformance.plugin.state import get_state
from conformance.results import static_na_reason

NA_PREFIX = "N/A: "
# user_properties names (docs/architecture.md "Recording"): plain strings only, because
# junitxml writes every user property into the XML; one `rule_id` property per rule.
RULE_ID, CASE = "rule_id", "case"


def case_id(item: pytest.Item) -> str:
    callspec = getattr(item, "callspec", None)
    return str(callspec.id) if callspec is not None else ""


def applicable(item: pytest.Item) -> tuple[list[Any], str | None]:
    """Rules of the item that apply to this run, and the N/A reason when none does."""
    state = get_state(item.config)
    rules = item.stash.get(RULES_KEY, ())
    reasons = [static_na_reason(r, state.options.as_of, state.options.target) for r in rules]
    reasons = [
        r or compat_na_reason(rule, state.options) for rule, r in zip(rules, reasons, strict=True)
    ]
    kept = [rule for rule, reason in zip(rules, reasons, strict=True) if reason is None]
    if kept:
        return kept, None
    return [], reasons[0] if reasons else None


def compat_na_reason(rule: Any, options: Options) -> str | None:
    """N/A when a rule's compatibility flag (bindings) is not in the state the rule is about.

    The flag is on when named by --compat-flag or when the compatibility date (--compat-date,
    default the as-of date) is on or after the rule's `compat.date`.
    """
    compat = getattr(rule, "compat", None)
    if not compat:
        return None
    flag, since = str(compat["flag"]), compat["date"]
    if isinstance(since, str):
        since = dt.date.fromisoformat(since)
    date = options.effective_compat_date
    enabled = flag in options.compat_flags or date >= since
    if enabled == bool(compat.get("enabled", True)):
        return None
    state = "on" if enabled else "off"
    flags = list(options.compat_flags)
    return f"compatibility flag {flag} is {state} (compat date {date}, flags {flags})"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # pytest keeps an item's user properties across --rerun attempts: a rule an earlier
    # attempt did not check says nothing of this attempt (attribution.unchecked_rule)
    item.user_properties[:] = [p for p in item.user_properties if p[0] != UNCHECKED_RULE]
    if not item.stash.get(RULES_KEY, ()):
        return
    rules, reason = applicable(item)
    ids = [rule.id for rule in rules] or [rule.id for rule in item.stash[RULES_KEY]]
    item.user_properties.extend((RULE_ID, rule_id) for rule_id in ids)
    item.user_properties.append((CASE, case_id(item)))
    if reason is not None:
        pytest.skip(NA_PREFIX + reason)
