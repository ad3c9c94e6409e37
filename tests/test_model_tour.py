"""The model's tour (model.yaml) names real steps with their real parameters."""

from __future__ import annotations

import inspect

from conformance.suite.storage.model.context import load_data
from conformance.suite.storage.model.machine import BucketRaceMachine, StoreMachine
from conformance.suite.storage.model.tour import runs_tour, tour_steps


def test_every_tour_step_is_a_step_of_the_machine_with_its_parameters() -> None:
    steps = tour_steps(load_data())
    assert steps, "the tour is empty"
    for step in steps:
        method = getattr(StoreMachine, step["step"], None)
        assert callable(method), f"no step {step['step']!r}"
        wanted = set(inspect.signature(method).parameters) - {"self"}
        given = set(step) - {"step"}
        assert given == wanted, f"{step['step']}: given {sorted(given)}, takes {sorted(wanted)}"


def test_a_machine_without_the_tour_steps_skips_the_tour() -> None:
    """The bucket-race machine has no multipart steps: a partial tour would name uploads
    that were never made."""
    steps = tour_steps(load_data())
    assert runs_tour(StoreMachine, steps)
    assert not runs_tour(BucketRaceMachine, steps)
