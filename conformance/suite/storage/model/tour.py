"""The model's fixed tour: one sequence of steps (model.yaml) run before the generated ones.

Generated sequences are good at odd interleavings and poor at long set-ups: in 300-1500 steps
they never completed a multipart upload or sent a condition on an object that exists, so the
rules behind those checks passed unchecked. The tour walks each such path once, with the same
steps, invariants and checks as any generated example, so a divergence on it fails the rule of
the check that diverged, with the tour's requests as evidence.
"""

from __future__ import annotations

from typing import Any

from conformance.suite.storage.model.base import ModelBase


def tour_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(step) for step in data.get("tour", [])]


def runs_tour(machine: type[ModelBase], steps: list[dict[str, Any]]) -> bool:
    """A machine without some step of the tour (the bucket-race machine) skips it whole: a
    partial tour would name uploads that were never made."""
    return bool(steps) and all(callable(getattr(machine, s["step"], None)) for s in steps)


def run_tour(machine: type[ModelBase]) -> None:
    """Run the tour on one fresh machine: set-up, each step then the invariant, tear-down."""
    steps = tour_steps(getattr(machine.ctx, "data", {}))  # a toy context has no model data
    if not runs_tour(machine, steps):
        return
    tour = machine()
    tour.trace.origin = "the model's fixed tour, model.yaml; not shrunk"
    try:
        tour.first_buckets()
        tour.touched_buckets_match()
        for step in steps:
            args = {name: _arg(value) for name, value in step.items() if name != "step"}
            getattr(tour, step["step"])(**args)
            tour.touched_buckets_match()
    finally:
        tour.teardown()


def _arg(value: Any) -> Any:
    """YAML lists are the steps' tuples (a key choice, an upload pick, a part)."""
    if isinstance(value, list):
        return [_arg(v) for v in value] if value and isinstance(value[0], list) else tuple(value)
    return value
