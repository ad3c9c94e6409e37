"""A job that failed and then delivered again is no longer shown failing.

The provider's job API documents last_error as null when the job never failed or has run
successfully at least once since its last failure (error_message likewise). The test makes a
job's destination fail (its bucket deleted under it), waits until the job reports the failure,
puts the bucket back, and once the next request's line has arrived reads the job again. A
target that never reports the failure within the log wait leaves the rule not checked here.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.log_delivery import (
    WAIT_ENV,
    _create_job,
    _send,
    _wait_for,
    log_wait,
    r2_destination,
)
from conformance.suite.setup_check import not_checked, require

FOLDER = "recovery"
OPTIONS = "fields=RayID,ClientRequestURI,EdgeStartTimestamp&timestamps=rfc3339"


def _job(rules_api: RulesApiClient, job_id: Any) -> dict[str, Any]:
    reply = rules_api.get_job(job_id)
    require(reply.status == 200 and isinstance(reply.result, dict), f"GET job: {reply.status}")
    job: dict[str, Any] = reply.result
    return job


def _poll(
    rules_api: RulesApiClient, job_id: Any, done: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The job once `done` holds for it, or as last read when one log wait has passed."""
    deadline = time.monotonic() + log_wait()
    while True:
        job = _job(rules_api, job_id)
        if done(job) or time.monotonic() > deadline:
            return job
        time.sleep(0.5)


def _request(edge_url: str, marker: str, name: str) -> str:
    path = f"/ec-logs/{marker}/{name}"
    try:
        _send(edge_url, path, {}, "GET")
    except AssertionError as exc:  # the edge's answer is not what this rule is about
        not_checked(f"the request to log was not answered: {exc}")
    return path


@pytest.mark.rule("logs.logpush.job-status-after-delivery")
def test_job_is_not_failing_once_it_delivered_after_a_failure(
    rules_api: RulesApiClient, s3: Any, edge: dict[str, Any], run_prefix: str
) -> None:
    bucket = f"{run_prefix}-logs-{secrets.token_hex(4)}"
    s3.boto.create_bucket(Bucket=bucket)
    dest = r2_destination(bucket, FOLDER, s3.surface)
    job = _create_job(rules_api, s3, f"{run_prefix}-{FOLDER}", dest, OPTIONS)
    marker = secrets.token_hex(6)
    try:
        s3.delete_bucket_recursive(bucket)  # the destination fails from now on
        _request(edge["url"], marker, "lost")
        failing = _poll(rules_api, job["id"], lambda j: j.get("last_error") is not None)
        if failing.get("last_error") is None:
            not_checked(
                f"the job did not report its deleted destination bucket within {log_wait():.0f}s"
                f" ({WAIT_ENV}): {failing}"
            )
        s3.boto.create_bucket(Bucket=bucket)
        path = _request(edge["url"], marker, "landed")
        try:
            _wait_for(s3, bucket, [FOLDER], {"landed": path})
        except AssertionError as exc:  # delivery is not what this rule is about
            not_checked(f"the line after the bucket came back did not arrive: {exc}")
        after = _poll(rules_api, job["id"], lambda j: j.get("last_error") is None)
        assert after.get("last_error") is None, f"failing after a delivery: {after}"
        assert after.get("error_message") is None, f"failing after a delivery: {after}"
        assert after.get("last_complete"), f"no last_complete after a delivery: {after}"
    finally:
        rules_api.delete_job(job["id"])
        with contextlib.suppress(ClientError):  # the bucket was not put back
            s3.delete_bucket_recursive(bucket)
