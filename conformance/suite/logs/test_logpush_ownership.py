"""Destination ownership: the challenge is delivered to the destination and gates job creation."""

from __future__ import annotations

import secrets
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import (
    challenge_token,
    http_destination,
    job_body,
    job_cleanup,
)
from conformance.suite.logs.log_delivery import r2_destination
from conformance.suite.setup_check import not_checked, require_ok


@pytest.mark.rule("logs.logpush.ownership-challenge")
def test_ownership_challenge_is_delivered(rules_api: RulesApiClient, run_prefix: str) -> None:
    """POST ownership answers {filename, valid, message} and writes the challenge there."""
    with http_destination(run_prefix) as (url, received):
        result = rules_api.request_ownership(url).assert_envelope_ok(200)
        assert isinstance(result.get("filename"), str) and result["filename"], result
        assert isinstance(result.get("valid"), bool), result
        assert isinstance(result.get("message"), str), result
        assert challenge_token(received), "an empty challenge was delivered"


@contextmanager
def _port_nothing_listens_at() -> Iterator[int]:
    """A loopback port held bound, never listened on, while the block runs: a connection to it
    is refused, and no other listener can take the number meanwhile."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


@pytest.mark.rule("logs.logpush.ownership-unreachable")
def test_challenge_for_an_unreachable_destination_is_not_valid(
    rules_api: RulesApiClient, run_prefix: str
) -> None:
    """An HTTP destination nothing listens at: the answer says valid false, or refuses with a
    4xx in the failure envelope; never valid true (no challenge was written), never a 5xx (the
    destination is the client's). docs/decisions.md "Ownership challenge to an unreachable
    destination"."""
    with _port_nothing_listens_at() as port:
        url = f"http://127.0.0.1:{port}/{run_prefix}/logs"
        reply = rules_api.request_ownership(url)
    assert reply.status < 500, f"a server error for an unreachable destination: {reply.describe()}"
    if reply.status >= 400:
        reply.assert_envelope_error(reply.status)
        return
    result = reply.assert_envelope_ok()
    assert isinstance(result, dict) and result.get("valid") is False, (
        f"a challenge for {url} (nothing listens there) answered {result}"
    )


@pytest.mark.rule("logs.logpush.ownership-challenge-required")
def test_job_needs_the_matching_challenge(rules_api: RulesApiClient, run_prefix: str) -> None:
    """A job without, or with a wrong, ownership_challenge is 400 pointing at it."""
    with http_destination(run_prefix) as (url, received), job_cleanup(rules_api, run_prefix):
        rules_api.request_ownership(url).assert_envelope_ok(200)
        token = challenge_token(received)
        body = job_body(run_prefix, url, token[::-1] + "x")
        reply = rules_api.create_job(body)
        reply.assert_envelope_error(400, pointer="/ownership_challenge")
        missing = {k: v for k, v in body.items() if k != "ownership_challenge"}
        rules_api.create_job(missing).assert_envelope_error(400, pointer="/ownership_challenge")
        # a token is a string (the provider's job schema): a number is a wrong one, not a 5xx
        number = rules_api.create_job(body | {"ownership_challenge": 12345})
        assert 400 <= number.status < 500, number.describe()  # no code published: any 4xx
        number.assert_envelope_error(number.status)


@pytest.mark.rule("logs.logpush.ownership-challenge-file")
def test_r2_challenge_file_is_inside_the_destination_path(
    rules_api: RulesApiClient, s3: Any, run_prefix: str
) -> None:
    """For `r2://bucket/a/b` the answer names a file under `a/b/` (the destination's path), says
    valid true, and that object holds the token that creates the job. An implementer who drops
    the path writes the challenge outside the destination; one who answers valid false tells a
    client (the provider's own SDKs check it) that the challenge failed. The provider's example
    is for s3:// and `filename` / `valid` are optional in its schema: a refused request is a
    setup failure (the bucket's account may not be the zone's), no filename is NOT-CHECKED, and
    valid is judged only when answered."""
    bucket = f"{run_prefix}-own-{secrets.token_hex(4)}"
    s3.boto.create_bucket(Bucket=bucket)
    try:
        folder = "edge-conformance/ownership"
        dest = r2_destination(bucket, folder, s3.surface)
        reply = require_ok(
            rules_api.request_ownership(dest), f"ownership request for r2://{bucket}/{folder}"
        )
        result = reply.assert_envelope_ok()
        filename = str(result.get("filename") or "")
        if not filename:
            not_checked(f"the ownership answer names no filename: {reply.describe()}")
        assert filename.startswith(f"{folder}/"), (
            f"not inside {folder}/ of r2://{bucket}/{folder}: {result}"
        )
        assert result.get("valid", True) is True, f"a challenge written, answered {result}"
        body = s3.boto.get_object(Bucket=bucket, Key=filename)["Body"].read()
        token = body.decode().strip()
        assert token, f"the challenge file {filename} is empty"
        with job_cleanup(rules_api, run_prefix):
            rules_api.create_job(job_body(run_prefix, dest, token)).assert_envelope_ok()
    finally:
        s3.delete_bucket_recursive(bucket)
