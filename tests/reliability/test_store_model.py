"""The suite's stateful model of the store against the reference: more steps, and threads.

The same machine as the suite's `test_store_follows_the_model`, with a larger budget and the
concurrent step (DeleteBucket while PUTs stream into the bucket, each PUT on its own thread and
connection). Issue 16's defects 1 (PUTs racing a DeleteBucket land in the deleted bucket and
come back when it is recreated) and 2 (an upload in progress survives DeleteBucket and shows up
in the recreated bucket) make these tests fail until the reference serialises bucket deletion
with object commits; they pass once it does.
"""

from __future__ import annotations

import pytest
from reliability.refproc import RefProcess

from conformance.clients.s3 import S3Client
from conformance.plugin.naming import Names
from conformance.suite.storage.model.context import ModelContext
from conformance.suite.storage.model.machine import BucketRaceMachine, StoreMachine, run_model

pytestmark = pytest.mark.slow
PREFIX = "ec-0000model"
MIN_PART_BYTES = 5 * 1024 * 1024
STEPS = 600  # ~20 s against the reference when nothing diverges
RACE_STEPS = 200


def context(ref: RefProcess, worker: str) -> ModelContext:
    s3 = S3Client.from_surface(ref.surface("s3"), PREFIX)
    return ModelContext(s3, Names(PREFIX, worker), MIN_PART_BYTES, concurrent=True)


def test_store_follows_the_model_with_races(ref: RefProcess) -> None:
    """Every step, the DeleteBucket race included, leaves the reference equal to the model."""
    summary = run_model(context(ref, "all"), STEPS, StoreMachine)
    print(summary.line())
    assert summary.steps >= STEPS // 2, summary.line()
    # the tour walks every check once: a check no step reaches leaves its rule unchecked
    assert summary.unreached == [], summary.line()


def test_the_tour_alone_reaches_every_check(ref: RefProcess) -> None:
    """With one generated step, the fixed tour still walks every check of model.yaml: a
    break-check or a mutant run with a small `--model-steps` checks every rule the test names."""
    ctx = context(ref, "tour")
    ctx.concurrent = False  # as the suite runs it
    summary = run_model(ctx, 1, StoreMachine)
    assert summary.unreached == [], summary.line()


def test_deleted_bucket_takes_racing_puts_with_it(ref: RefProcess) -> None:
    """Bucket and object steps with the race alone (no uploads): nothing outlives DeleteBucket."""
    summary = run_model(context(ref, "race"), RACE_STEPS, BucketRaceMachine)
    print(summary.line())
    assert summary.steps >= RACE_STEPS // 2, summary.line()
