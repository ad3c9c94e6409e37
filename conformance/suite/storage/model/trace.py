"""The steps of one run of the model, and the check that turns a divergence into a FAIL.

Every request a step sends is written down (short, with bucket aliases B0..B2), so that a
divergence shows the whole sequence that led to it; after Hypothesis has shrunk a failing run,
that sequence is the shrunk one, and it becomes the failure message and the evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import NoReturn

from conformance.clients.evidence import Exchange, collector
from conformance.clients.s3_wire import WireReply
from conformance.plugin.attribution import RuleFailure

MAX_LINES = 40  # a failure message keeps the last steps (a shrunk run is rarely longer)
LONG_KEY = 40  # longer keys are shown cut, with their length


def status_text(reply: WireReply) -> str:
    code = reply.error_code
    return f"{reply.status} {code}" if code else str(reply.status)


@dataclass
class Trace:
    aliases: dict[str, str]  # bucket name -> B0, B1, ...
    lines: list[str] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    step: int = 0
    origin: str = "shrunk when Hypothesis could"  # where the sequence came from

    def short(self, bucket: str, key: str | None = None) -> str:
        alias = self.aliases.get(bucket, bucket)
        if key is None:
            return alias
        shown = key if len(key) <= LONG_KEY else f"{key[:8]}…({len(key.encode())} bytes)"
        return f"{alias}/{shown!r}"

    def begin(self, text: str) -> None:
        """A new step of the machine (a rule Hypothesis chose)."""
        self.step += 1
        self.lines.append(f"{self.step}. {text}")

    def sent(self, text: str, reply: WireReply | None, outcome: str | None = None) -> None:
        """One request of the current step and what came back."""
        answer = outcome if reply is None else status_text(reply)
        self.lines.append(f"     {text} -> {answer}")
        if reply is not None and collector.exchanges:
            self.exchanges.append(collector.exchanges[-1])

    def render(self) -> str:
        lines = self.lines[-MAX_LINES:]
        cut = len(self.lines) - len(lines)
        head = [f"     ... {cut} earlier lines"] if cut else []
        return "\n".join(head + lines)


class ModelFailure(RuleFailure):
    """A divergence of one rule, with the run's trace (its requests become the evidence)."""

    trace: Trace | None = None


_FAILURE_TYPES: dict[str, type[ModelFailure]] = {}


def failure_type(rule_id: str) -> type[ModelFailure]:
    """One exception class per rule. Hypothesis tells failures apart by type and place, and
    shrinks each kind only into a smaller example of the same kind: with one class for every
    rule, a shrink could slip from one rule's divergence to another's (a later, innocent
    operation of a sequence that first broke a different rule), and blame the wrong rule."""
    found = _FAILURE_TYPES.get(rule_id)
    if found is None:
        found = type(f"ModelFailure[{rule_id}]", (ModelFailure,), {})
        _FAILURE_TYPES[rule_id] = found
    return found


@dataclass
class Checker:
    """Compares one observation with the model; a mismatch fails the rule of its check."""

    checks: dict[str, str]  # check name -> catalog rule id (model.yaml)
    trace: Trace
    diverged: list[str] = field(default_factory=list)  # rule ids in the order they failed
    # check name -> how often it held: shows which checks a budget reached (a check the
    # generated sequences never reach checks nothing, whatever the verdict says)
    held: Counter[str] = field(default_factory=Counter)

    def fail(self, check: str, detail: str) -> NoReturn:
        rule_id = self.checks[check]
        self.diverged.append(rule_id)
        failure = failure_type(rule_id)(
            rule_id,
            f"the store diverged from the model ({check}): {detail}\n"
            f"sequence of requests ({self.trace.origin}):\n{self.trace.render()}",
        )
        failure.trace = self.trace
        raise failure

    def reached(self, *checks: str) -> None:
        """Checks that held without a comparison of their own: a step whose later check
        (the bucket's listing, a read) would have failed them (see `held`)."""
        self.held.update(checks)

    def expect(self, ok: bool, check: str, detail: str) -> None:
        if not ok:
            self.fail(check, detail)
        self.held[check] += 1

    def status(
        self,
        reply: WireReply,
        statuses: set[int],
        codes: Collection[str | None],
        check: str,
        what: str,
    ) -> None:
        """The reply's status is one of `statuses` and its error code one of `codes`."""
        code = reply.error_code if reply.status >= 400 else None
        unchecked = reply.status < 400 or reply.method == "HEAD" or not codes
        if reply.status in statuses and (unchecked or code in codes):
            self.held[check] += 1
            return
        want = " or ".join(sorted(str(s) for s in statuses))
        named = {c for c in codes if c}
        if named:
            want += " " + "/".join(sorted(named))
        self.fail(check, f"{what}: expected {want}, got {status_text(reply)}")
