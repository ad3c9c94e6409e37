"""The state machine of the store and the bounded, reproducible run of it.

`run_model` runs Hypothesis over random interleavings of the steps (fixed seed: the same
budget gives the same requests), shrinks a divergence to a short sequence, and raises the
`RuleFailure` of the rule that diverged with that sequence as message and evidence.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import Flaky
from hypothesis.internal.conjecture import engine
from hypothesis.stateful import run_state_machine_as_test

from conformance.clients.evidence import collector
from conformance.plugin.attribution import RuleFailure
from conformance.suite.storage.model.base import ModelBase
from conformance.suite.storage.model.context import ModelContext
from conformance.suite.storage.model.listing import ListingSteps
from conformance.suite.storage.model.multipart import MultipartSteps
from conformance.suite.storage.model.objects import ObjectSteps
from conformance.suite.storage.model.races import RaceSteps
from conformance.suite.storage.model.tour import run_tour

STEPS_PER_EXAMPLE = 20
SHRINK_SECONDS = 60  # Hypothesis's own cap is 5 minutes; each replay here costs real requests


class StoreMachine(MultipartSteps, ListingSteps, RaceSteps):
    """Every step of the model; `ctx` is set on a subclass per run (see `run_model`)."""


class BucketRaceMachine(ObjectSteps, RaceSteps):
    """Buckets, objects and the DeleteBucket race alone: no upload is ever in progress."""


@dataclass(frozen=True)
class Summary:
    steps: int
    examples: int
    held: dict[str, int]  # check -> times it held
    checks: tuple[str, ...]  # every check of model.yaml

    @property
    def unreached(self) -> list[str]:
        """The checks no generated step reached: the run says nothing about their rules."""
        return [check for check in self.checks if not self.held.get(check)]

    def line(self) -> str:
        reached = len(self.checks) - len(self.unreached)
        text = (
            f"store model: {self.steps} steps checked in {self.examples} runs; "
            f"{reached} of {len(self.checks)} checks reached"
        )
        return text + (f" (not reached: {', '.join(self.unreached)})" if self.unreached else "")


def model_settings(budget: int, shrink: bool = True) -> settings:
    per_example = max(1, min(budget, STEPS_PER_EXAMPLE))
    return settings(
        max_examples=max(1, math.ceil(budget / per_example)),
        stateful_step_count=per_example,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        # each rule's divergence is shrunk on its own (no slip to another rule's, see
        # trace.failure_type); the first one found is reported (see run_model)
        report_multiple_bugs=True,
        print_blob=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink)
        if shrink
        else (Phase.explicit, Phase.generate),
    )


def run_model(
    ctx: ModelContext,
    budget: int,
    steps: type[ModelBase] = StoreMachine,
    shrink_seconds: int = SHRINK_SECONDS,
) -> Summary:
    """Run the tour (tour.py), then about `budget` generated steps; a divergence raises its
    RuleFailure (shrunk sequence inside; the tour's is not shrunk).

    Several rules may diverge in one run: each was shrunk on its own. The rule reported is
    the one whose divergence generation found first: generation is derandomized, so that is
    the same rule every run. Shrinking is capped in time, and which other rules it stumbles
    on (and how short it gets them) depends on the machine's speed, so the shortest sequence
    would blame a different rule on a busier machine.
    """
    machine = type("StoreModel", (steps,), {"ctx": ctx})
    try:
        with _shrink_cap(max(1, shrink_seconds)), _first_bug_ends_generation():
            run_tour(machine)
            settings_ = model_settings(budget, shrink=shrink_seconds > 0)
            run_state_machine_as_test(machine, settings=settings_)
    except (RuleFailure, Flaky, BaseExceptionGroup) as exc:
        failures = _rule_failures(exc)
        if not failures:
            raise
        found = _first_found(failures, ctx.diverged)
        _evidence(ctx, found)
        note = "(did not repeat on replay) " if isinstance(exc, Flaky) else ""
        others = sorted({f.rule_id for f in failures} - {found.rule_id})
        also = f"\nother rules that diverged in this run: {', '.join(others)}" if others else ""
        detail = f"{note}{found.detail}{also}\n{_counted(ctx)}"
        raise RuleFailure(found.rule_id, detail) from exc
    return Summary(ctx.steps, ctx.examples, dict(ctx.held), tuple(ctx.checks))


def _first_found(failures: list[RuleFailure], diverged: list[str]) -> RuleFailure:
    """The (shrunk) failure of the rule that diverged first, else the shortest one."""
    for rule_id in diverged[:1]:
        for failure in failures:
            if failure.rule_id == rule_id:
                return failure
    return min(failures, key=_size)


def _size(failure: RuleFailure) -> tuple[int, str]:
    trace = getattr(failure, "trace", None)
    return (trace.step if trace is not None else 1 << 30, failure.rule_id)


@contextlib.contextmanager
def _shrink_cap(seconds: int) -> Iterator[None]:
    """Bound the time spent shrinking (Hypothesis documents this constant as patchable)."""
    saved = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = seconds
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = saved


@contextlib.contextmanager
def _first_bug_ends_generation() -> Iterator[None]:
    """Stop generating at the first divergence, as with report_multiple_bugs=False, so the
    outcome does not depend on how many examples a busy machine runs in Hypothesis's 10 s
    search for more bugs; the shrink (one kind at a time) still runs as with True."""
    runner = engine.ConjectureRunner
    saved = runner.should_generate_more

    def first_bug_only(self: engine.ConjectureRunner) -> bool:
        return False if self.interesting_test_cases else saved(self)

    runner.should_generate_more = first_bug_only  # type: ignore[method-assign]
    try:
        yield
    finally:
        runner.should_generate_more = saved  # type: ignore[method-assign]


def _counted(ctx: ModelContext) -> str:
    return f"({ctx.steps} steps checked in {ctx.examples} runs, shrinking included)"


def _rule_failures(exc: BaseException) -> list[RuleFailure]:
    """Every RuleFailure in `exc` (itself, or inside an exception group such as Flaky)."""
    if isinstance(exc, RuleFailure):
        return [exc]
    found: list[RuleFailure] = []
    for inner in getattr(exc, "exceptions", ()) or ():
        found += _rule_failures(inner)
    return found


def _evidence(ctx: ModelContext, failure: RuleFailure) -> None:
    """The requests of the failing (shrunk) run become the test's evidence, newest last."""
    collector.reset()
    trace = getattr(failure, "trace", None)
    if trace is None and ctx.last is not None:
        trace = ctx.last.trace
    if trace is None:
        return
    for exchange in trace.exchanges:
        collector.add(exchange)
