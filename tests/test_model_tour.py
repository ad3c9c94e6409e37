"""The model's tour (model.yaml) names real steps with their real parameters."""

from __future__ import annotations

import inspect
from collections import Counter
from types import SimpleNamespace

from conformance.suite.storage.model.context import load_data
from conformance.suite.storage.model.listing import parameters_tested
from conformance.suite.storage.model.machine import BucketRaceMachine, StoreMachine
from conformance.suite.storage.model.objects import ObjectSteps
from conformance.suite.storage.model.store import Bucket, Obj, Store
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


def test_a_listing_parameter_counts_as_checked_only_where_ignoring_it_would_show() -> None:
    """Hostile review of 2042608: list-prefix, list-delimiter and list-start-after were
    reached whenever the request sent the parameter, even over a bucket where a target that
    ignored it lists the very same entries (an empty bucket, keys all under the prefix)."""
    assert parameters_tested([], "a/", "a", []) == []
    assert parameters_tested(["a/b", "a/c"], "a/", "", [("a/b", False), ("a/c", False)]) == []
    assert parameters_tested(["b", "c"], "", "a", [("b", False), ("c", False)]) == []
    keys = [" lead", "a/b", "a/b/c", "z"]
    want = [("a/b", False), ("a/b/", True)]
    assert parameters_tested(keys, "a/", "", want) == [
        "list-prefix", "list-delimiter", "list-common-prefix-once",
    ]  # fmt: skip
    assert parameters_tested(keys, "", "a", [("a/b", False), ("z", False)]) == ["list-start-after"]


def _recreate(bucket: Bucket) -> Counter[str]:
    """recreate_bucket on a stand-in machine whose requests all succeed; the checks reached."""
    store, reached = Store(buckets={"b": bucket}), Counter[str]()
    machine = SimpleNamespace(
        store=store,
        bucket=lambda b: "b",
        delete_keys=lambda name, keys, quiet: [store.buckets[name].objects.pop(k) for k in keys],
        delete_bucket=lambda b: store.buckets.pop("b"),
        verify_bucket=lambda name: None,
        create_bucket=lambda b: store.buckets.__setitem__("b", Bucket()),
        check=SimpleNamespace(reached=lambda *checks: reached.update(checks)),
    )
    ObjectSteps.recreate_bucket(machine, 0)  # type: ignore[arg-type]
    return reached


def test_recreating_an_empty_bucket_does_not_reach_no_resurrection() -> None:
    """Hostile review of 2042608: a bucket's whole life counted no-resurrection as checked
    when the old bucket held nothing, where nothing could come back."""
    assert not _recreate(Bucket())
    obj = Obj("e", 1, "e", "text/plain", {}, "put")
    assert _recreate(Bucket(objects={"k": obj}))["no-resurrection"] == 1
