"""The store follows a model of S3 semantics over random interleavings of requests.

Bucket, object, multipart, listing and conditional requests over a few buckets and odd keys,
each answer compared with an in-memory model, every touched bucket listed after every step.
A divergence fails the one rule of the operation that diverged (the others pass) and shows
the sequence of requests Hypothesis shrank it to. `--model-steps N` runs more steps.
"""

from __future__ import annotations

import datetime as dt

import pytest

from conformance.plugin.applicability import NA_PREFIX
from conformance.plugin.state import get_state
from conformance.suite.storage.model.context import ModelContext, rule_ids
from conformance.suite.storage.model.machine import run_model

DEFAULT_STEPS = 300  # ~15 s against the reference; fixed seed: the same requests each run


def model_baseline(config: pytest.Config) -> dt.date:
    """The model encodes the behaviour in force once its latest rule took effect."""
    catalog = get_state(config).catalog(config)
    dates = [catalog.get(rule_id).since for rule_id in rule_ids()]
    latest: dt.date = max(d for d in dates if d is not None)
    return latest


@pytest.mark.rule(*rule_ids())
def test_store_follows_the_model(s3, names, expected, as_of, pytestconfig, record_property):
    """Every answer of a random sequence of requests matches the model of the store."""
    baseline = model_baseline(pytestconfig)
    if as_of < baseline:
        pytest.skip(f"{NA_PREFIX}the model encodes the behaviour in force from {baseline}")
    budget = pytestconfig.getoption("model_steps") or DEFAULT_STEPS
    ctx = ModelContext(s3, names, int(expected.min_part_bytes))
    summary = run_model(ctx, int(budget))
    print(summary.line())
    record_property("model_steps", str(summary.steps))
    assert summary.steps > 0, "the model ran no step"
