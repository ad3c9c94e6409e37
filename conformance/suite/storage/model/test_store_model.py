"""The store follows a model of S3 semantics over random interleavings of requests.

Bucket, object, multipart, listing and conditional requests over a few buckets and odd keys,
each answer compared with an in-memory model, every touched bucket listed after every step.
A divergence fails the one rule of the operation that diverged (the others pass) and shows
the sequence of requests Hypothesis shrank it to. `--model-steps N` runs more steps;
`--model-shrink-seconds 0` reports a divergence as found (break-checks and mutants need the
verdict, not the shortest sequence). A fixed tour (model.yaml, tour.py) runs first so that
every check is reached; a rule none of whose checks was reached is NOT-CHECKED, never PASS.
"""

from __future__ import annotations

import datetime as dt

import pytest

from conformance.plugin.applicability import NA_PREFIX
from conformance.plugin.attribution import unchecked_rule
from conformance.plugin.state import get_state
from conformance.suite.storage.model.context import ModelContext, rule_ids
from conformance.suite.storage.model.machine import SHRINK_SECONDS, run_model

DEFAULT_STEPS = 300  # ~15 s against the reference; fixed seed: the same requests each run


def model_baseline(config: pytest.Config) -> dt.date:
    """The model encodes the behaviour in force once its latest rule took effect."""
    catalog = get_state(config).catalog(config)
    dates = [catalog.get(rule_id).since for rule_id in rule_ids()]
    latest: dt.date = max(d for d in dates if d is not None)
    return latest


# The rules are written out (the catalog's coverage scan reads literal ids); the check at
# the end of the module keeps them equal to the rules of model.yaml's checks.
@pytest.mark.rule(
    "storage.create-bucket.location-auto",
    "storage.delete-bucket.deletes-empty",
    "storage.delete-bucket.not-empty-409",
    "storage.delete-bucket.uploads-in-progress",
    "storage.delete-bucket.no-resurrection",
    "storage.errors.no-such-bucket",
    "storage.put-object.round-trip",
    "storage.put-object.etag-md5",
    "storage.put-object.custom-metadata",
    "storage.put-object.http-metadata",
    "storage.put-object.conditional-412",
    "storage.put-object.conditional-met",
    "storage.put-object.create-if-absent-race",
    "storage.put-object.last-modified",
    "storage.get-object.missing-key",
    "storage.get-object.if-match-unmet-412",
    "storage.get-object.if-match-list",
    "storage.get-object.if-none-match-list",
    "storage.get-object.wildcard",
    "storage.get-object.if-modified-since",
    "storage.get-object.not-modified-headers",
    "storage.copy-object.round-trip",
    "storage.copy-object.keeps-metadata",
    "storage.copy-object.multipart-source",
    "storage.copy-object.missing-source-bucket",
    "storage.copy-object.missing-source-key",
    "storage.copy-object.missing-destination-bucket",
    "storage.copy-object.destination-if-match",
    "storage.copy-object.destination-if-none-match",
    "storage.copy-object.destination-condition-met",
    "storage.delete-object.removes",
    "storage.delete-object.keys-not-trimmed",
    "storage.delete-object.missing-key-204",
    "storage.delete-objects.deletes-listed",
    "storage.delete-objects.leading-spaces-kept",
    "storage.delete-objects.trailing-spaces-kept",
    "storage.delete-objects.quiet",
    "storage.list-multipart-uploads.supported",
    "storage.complete-multipart-upload.sizes-checked-at-completion",
    "storage.upload-part.no-such-upload",
    "storage.upload-part.not-no-such-bucket",
    "storage.complete-multipart-upload.publishes",
    "storage.complete-multipart-upload.etag-suffix",
    "storage.complete-multipart-upload.etag-md5-of-parts",
    "storage.complete-multipart-upload.etag-suffix-dated",
    "storage.complete-multipart-upload.entity-too-small",
    "storage.complete-multipart-upload.unequal-parts-invalid-part",
    "storage.complete-multipart-upload.last-part-smaller",
    "storage.complete-multipart-upload.condition-fails-412",
    "storage.complete-multipart-upload.condition-fails-aborts",
    "storage.complete-multipart-upload.condition-met",
    "storage.complete-multipart-upload.retry-same-answer",
    "storage.abort-multipart-upload.aborts",
    "storage.abort-multipart-upload.repeat-2xx",
    "storage.list-objects.max-keys",
    "storage.list-objects.key-count",
    "storage.list-objects.prefix",
    "storage.list-objects.delimiter",
    "storage.list-objects.continuation-token",
    "storage.list-objects.common-prefix-once",
    "storage.list-objects.no-cursor-at-max-keys",
    "storage.list-objects.v1-next-marker",
    "storage.list-objects.start-after",
    "storage.list-objects.utf8-order",
)
def test_store_follows_the_model(s3, names, expected, as_of, pytestconfig, record_property):
    """Every answer of a random sequence of requests matches the model of the store."""
    baseline = model_baseline(pytestconfig)
    if as_of < baseline:
        pytest.skip(f"{NA_PREFIX}the model encodes the behaviour in force from {baseline}")
    budget = pytestconfig.getoption("model_steps") or DEFAULT_STEPS
    ctx = ModelContext(s3, names, int(expected.min_part_bytes))
    shrink = pytestconfig.getoption("model_shrink_seconds")
    shrink_seconds = SHRINK_SECONDS if shrink is None else int(shrink)
    try:
        summary = run_model(ctx, int(budget), shrink_seconds=shrink_seconds)
    finally:
        for rule_id in unreached_rules(ctx):
            record_property(*unchecked_rule(rule_id, UNREACHED))
    print(summary.line())
    record_property("model_steps", str(summary.steps))
    assert summary.steps > 0, "the model ran no step"


UNREACHED = "no request of the model's tour or generated sequences reached a check of it"


def unreached_rules(ctx: ModelContext) -> list[str]:
    """The rules none of whose checks held once: the model's pass says nothing of them."""
    reached = {rule_id for check, rule_id in ctx.checks.items() if ctx.held.get(check)}
    return sorted(set(ctx.checks.values()) - reached)


_marked = {arg for mark in test_store_follows_the_model.pytestmark for arg in mark.args}
assert _marked == set(rule_ids()), f"rule marks and model.yaml differ: {_marked ^ set(rule_ids())}"
