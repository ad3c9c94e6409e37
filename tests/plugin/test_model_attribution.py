"""The stateful model blames the rule whose behaviour diverged, whatever else diverged too.

A toy machine stands in for the store: one step breaks rule A at once, another breaks rule B
only after a few writes. Both are found in one run. Each divergence must be shrunk as its own
(one exception type per rule, so Hypothesis does not slip from one rule's failure into
another's), the report names the smallest one's rule with a sequence that ends at that rule's
check, and it names the other rule that diverged too, instead of hiding it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis.stateful import RuleBasedStateMachine, rule

from conformance.plugin.attribution import RuleFailure
from conformance.suite.storage.model.machine import run_model
from conformance.suite.storage.model.trace import Checker, Trace, failure_type

CHECKS = {"write": "rule.write-diverges", "read": "rule.read-diverges"}


class Toy(RuleBasedStateMachine):
    ctx: Any

    def __init__(self) -> None:
        super().__init__()
        self.ctx.examples += 1
        self.trace = Trace({})
        self.check = Checker(CHECKS, self.trace)
        self.writes = 0

    @rule()
    def write(self) -> None:
        self.ctx.steps += 1
        self.trace.begin("write")
        self.writes += 1
        self.check.expect(self.writes < 4, "write", f"write number {self.writes}")

    @rule()
    def read(self) -> None:
        self.ctx.steps += 1
        self.trace.begin("read")
        self.check.expect(self.writes < 1, "read", "a read after a write")


def test_one_exception_type_per_rule() -> None:
    """Hypothesis tells failures apart by type: two rules, two types; one rule, one type."""
    assert failure_type("rule.a") is failure_type("rule.a")
    assert failure_type("rule.a") is not failure_type("rule.b")
    assert issubclass(failure_type("rule.a"), RuleFailure)


def test_smallest_divergence_reported_and_the_other_named() -> None:
    ctx = SimpleNamespace(steps=0, examples=0, last=None)
    with pytest.raises(RuleFailure) as raised:
        run_model(ctx, 200, Toy)  # type: ignore[arg-type]
    failure = raised.value
    assert failure.rule_id == "rule.read-diverges"
    sequence = failure.detail.split("sequence of requests", 1)[1].split("other rules", 1)[0]
    assert sequence.strip().splitlines()[-1].endswith("read"), failure.detail
    assert "other rules that diverged in this run: rule.write-diverges" in failure.detail
