"""A failure that names the one rule it breaks, for a test that serves several rules.

A test marked with several rules (the stateful model of the store checks dozens) fails on
one of them; raising `RuleFailure` says which. The recorder then records that rule FAIL and
the test's other rules PASS, instead of failing every rule the test names.
"""

from __future__ import annotations


class RuleFailure(AssertionError):
    """An assertion failure of the catalog rule `rule_id` (a FAIL, like any AssertionError)."""

    def __init__(self, rule_id: str, message: str) -> None:
        super().__init__(f"[{rule_id}] {message}")
        self.rule_id = rule_id
        self.detail = message


# A user property (one per rule, value "<rule id> <why>"): a rule of the test that its run
# never checked. The test passing says nothing about such a rule, so the recorder makes that
# rule NOT-CHECKED instead of PASS (a test that checks dozens of rules along generated paths,
# like the store's model, may not walk every rule's path).
UNCHECKED_RULE = "unchecked_rule"


def unchecked_rule(rule_id: str, why: str) -> tuple[str, str]:
    """The (name, value) to hand `record_property` for one rule the test did not check."""
    return UNCHECKED_RULE, f"{rule_id} {why}"


def unchecked_rules(user_properties: list[tuple[str, object]]) -> dict[str, str]:
    """rule id -> why, from a report's user properties."""
    found: dict[str, str] = {}
    for name, value in user_properties:
        if name == UNCHECKED_RULE:
            rule_id, _, why = str(value).partition(" ")
            found[rule_id] = why
    return found
