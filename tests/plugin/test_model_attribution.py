"""The stateful model blames the rule whose behaviour diverged, whatever else diverged too.

A toy machine stands in for the store: one step breaks rule A at once, another breaks rule B
only after a few writes. Both are found in one run. Each divergence must be shrunk as its own
(one exception type per rule, so Hypothesis does not slip from one rule's failure into
another's), the report names the rule whose divergence generation found first (derandomized,
so the same rule every run, whatever the time-capped shrink found besides) with a sequence
that ends at that rule's check, and it names the other rule that diverged too.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis.stateful import RuleBasedStateMachine, rule

from conformance.plugin.attribution import RuleFailure
from conformance.suite.storage.model.machine import _first_found, run_model
from conformance.suite.storage.model.trace import Checker, Trace, failure_type

CHECKS = {"write": "rule.write-diverges", "read": "rule.read-diverges"}


class Toy(RuleBasedStateMachine):
    ctx: Any

    def __init__(self) -> None:
        super().__init__()
        self.ctx.examples += 1
        self.trace = Trace({})
        self.check = Checker(CHECKS, self.trace, self.ctx.diverged)
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


def test_first_divergence_reported_and_the_other_named() -> None:
    """Here generation first meets the write rule (4 writes); shrinking then also finds the
    2-step read divergence. The write rule is blamed, with its own shrunk sequence."""
    ctx = SimpleNamespace(steps=0, examples=0, last=None, diverged=[])
    with pytest.raises(RuleFailure) as raised:
        run_model(ctx, 200, Toy)  # type: ignore[arg-type]
    failure = raised.value
    assert ctx.diverged[0] == "rule.write-diverges"
    assert failure.rule_id == "rule.write-diverges"
    sequence = failure.detail.split("sequence of requests", 1)[1].split("other rules", 1)[0]
    assert sequence.strip().splitlines()[-1].endswith("write"), failure.detail
    assert "other rules that diverged in this run: rule.read-diverges" in failure.detail


def test_same_rule_with_and_without_shrinking() -> None:
    """Shrinking (capped in time, so machine-dependent) never changes which rule is blamed."""
    blamed = []
    for shrink_seconds in (0, 60):
        ctx = SimpleNamespace(steps=0, examples=0, last=None, diverged=[])
        with pytest.raises(RuleFailure) as raised:
            run_model(ctx, 200, Toy, shrink_seconds=shrink_seconds)  # type: ignore[arg-type]
        blamed.append(raised.value.rule_id)
    assert blamed[0] == blamed[1]


def _shrunk(rule_id: str, steps: int) -> RuleFailure:
    failure = failure_type(rule_id)(rule_id, f"{steps} steps")
    failure.trace = SimpleNamespace(step=steps)  # type: ignore[assignment]
    return failure


def test_a_shorter_divergence_found_later_does_not_take_the_blame() -> None:
    """SeaweedFS: generation found `put-object.round-trip` first; a shrink that ran long
    enough also stumbled on a 2-step `copy-object.keeps-metadata` divergence, and the old
    rule (shortest sequence wins) blamed that one on a busy machine only."""
    first = _shrunk("storage.put-object.round-trip", 5)
    later = _shrunk("storage.copy-object.keeps-metadata", 2)
    diverged = ["storage.put-object.round-trip", "storage.copy-object.keeps-metadata"]
    assert _first_found([later, first], diverged) is first
    assert _first_found([later, first], []) is later  # nothing recorded: the shortest
