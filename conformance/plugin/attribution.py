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
