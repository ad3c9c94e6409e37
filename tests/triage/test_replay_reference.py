"""`conformance replay` against the reference: a rule broken on purpose (--profile), replayed
(same answer as recorded; also by the bare command, on a fresh reference it starts), then
fixed (the reference relaunched without the deviation) and replayed again (the answer
differs): replay shows whether a fix took."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.reference_process import launch_reference, stop_process

from conformance.replay import replay

RULE = "storage.get-bucket-location.auto"
BROKEN = "deviate_bucket_location=wnam"


def _run_broken(tmp_path: Path) -> Path:
    """A real run of the rule against the reference with the deviation: its results file."""
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--rule", f"{RULE}$",
           "--reference-profile", BROKEN, "-n", "0", "--report-dir", str(tmp_path / "reports"),
           "--run-id", "broken"]  # fmt: skip
    subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False)
    results = tmp_path / "reports" / "broken" / "results.json"
    doc = json.loads(results.read_text("utf-8"))
    assert [r["status"] for r in doc["rules"] if r["id"] == RULE] == ["FAIL"]
    return results


def _surfaces(ready: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"s3": ready["surfaces"]["s3"]}


def _curl_answer(results: Path, ready: dict[str, Any]) -> str | None:
    """The recorded request's curl command (as the report shows it) run against this server,
    the secrets in the environment; None without a curl that signs."""
    import os
    import shutil

    from conformance.recorded import curl_command

    if shutil.which("curl") is None:
        return None
    doc = json.loads(results.read_text("utf-8"))
    case = next(c for c in doc["cases"] if c["rule_id"] == RULE)
    exchange = case["evidence"][-1]
    old = "/".join(exchange["url"].split("/")[:3])
    line = curl_command(exchange, "s3").replace(old, ready["surfaces"]["s3"]["endpoint"])
    s3 = ready["surfaces"]["s3"]
    env = {**os.environ, "AWS_ACCESS_KEY_ID": s3["access_key_id"],
           "AWS_SECRET_ACCESS_KEY": s3["secret_access_key"]}  # fmt: skip
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, env=env,
                          timeout=60, check=False)  # fmt: skip
    if "aws-sigv4" in done.stderr:  # an old curl without --aws-sigv4
        return None
    return done.stdout


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_replay_reproduces_the_broken_answer_then_sees_the_fix(tmp_path: Path) -> None:
    results = _run_broken(tmp_path)
    data = tmp_path / "data"
    process, ready = launch_reference(data, "--profile", BROKEN)
    try:
        # no bucket made here: the case's evidence holds the CreateBucket a fixture sent
        lines: list[str] = []
        broken = replay(results, RULE, _surfaces(ready), lines.append)
        curl_answer = _curl_answer(results, ready)
    finally:
        stop_process(process)
    assert broken.reproduced, "\n".join(lines)
    assert broken.failing.answer.status == 200 and "wnam" in broken.failing.answer.body
    assert re.search(r"the failing request \[\d+\]: reproduced", "\n".join(lines))
    assert broken.requests[0].recorded.method == "PUT" and "setup:" in broken.requests[0].notes[0]
    assert "| today" in "\n".join(lines)  # side by side
    if curl_answer is not None:  # the report's command, run as a person would (curl >= 7.75)
        assert curl_answer.startswith("HTTP/1.1 200") and "wnam" in curl_answer, curl_answer

    # the command an implementer is shown, with no target named: the bundled reference lives
    # only as long as its run, so replay starts a fresh one with the run's date and profile
    said = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "replay", str(results), RULE],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert said.returncode == 0, said.stderr
    assert "a fresh bundled reference" in said.stdout, said.stdout
    assert re.search(r"the failing request \[\d+\]: reproduced", said.stdout), said.stdout

    process, ready = launch_reference(data)  # fixed: the deviation is gone, data kept
    try:
        lines = []
        fixed = replay(results, RULE, _surfaces(ready), lines.append)
    finally:
        stop_process(process)
    assert not fixed.reproduced, "\n".join(lines)
    assert "auto" in fixed.failing.answer.body and "wnam" in fixed.failing.recorded.response_body
    assert "not reproduced as recorded" in "\n".join(lines)


def test_a_status_failure_is_reproduced_by_the_status_a_body_failure_by_the_body() -> None:
    from conformance.recorded import from_exchange
    from conformance.replay import _ABOUT_STATUS, Answer, Outcome, Replayed

    recorded = from_exchange({"method": "GET", "url": "http://h/", "status": 200,
                              "request_headers": {"x-amz-date": "x"},
                              "body_excerpt": "<Buckets><Name>a</Name></Buckets>"})  # fmt: skip
    today = Replayed(
        recorded, "http://h/", Answer(200, {}, "<Buckets><Name>b</Name></Buckets>"), []
    )
    message = "AssertionError: expected 401 Unauthorized; GET http://h/ answered 200"
    assert _ABOUT_STATUS.search(message)
    assert Outcome([today], 0, about_status=True).reproduced
    assert not Outcome([today], 0, about_status=False).reproduced  # e.g. a listing's content
    refused = Replayed(recorded, "http://h/", Answer(401, {}, "<Code>Unauthorized</Code>"), [])
    assert not Outcome([refused], 0, about_status=True).reproduced  # fixed


def test_the_failing_request_is_the_one_the_assertion_names() -> None:
    from conformance.recorded import from_exchange
    from conformance.replay import Answer, Replayed, failing_index

    def sent(method: str, url: str) -> Replayed:
        rec = from_exchange({"method": method, "url": url, "status": 200})
        return Replayed(rec, url, Answer(200, {}, ""), [])

    done = [sent("POST", "http://h/client/v4/zones/z/rulesets"),
            sent("DELETE", "http://h/client/v4/zones/z/rulesets/r1")]  # fmt: skip
    message = (
        "AssertionError: expected a 2xx answer: POST http://h/client/v4/zones/z/rulesets -> 400"
        "\nlast exchange: DELETE http://h/client/v4/zones/z/rulesets/r1 -> 204"
    )
    assert failing_index({"message": message}, done) == 0
    assert failing_index({"message": "assert 1 == 2"}, done) == 1


def test_bytes_written_as_they_are_are_named_not_sent_again() -> None:
    """A raw write (a split head, a pipelined pair, bytes that are no request) is not sent by
    replay as a request of method RAW, and the report offers no curl command for it: both would
    send a well-formed request, not what the rule sent."""
    from conformance.recorded import RAW, curl_command
    from conformance.replay import Outcome, replay_case

    case = {"case": "split-head", "evidence": [
        {"method": RAW, "url": "http://127.0.0.1:9/b/k", "status": 431,
         "request_body_excerpt": "40+20 bytes written in 2 piece(s)", "body_excerpt": ""},
    ]}  # fmt: skip
    assert curl_command(case["evidence"][0], "s3") == ""
    done = replay_case(case, {"s3": {"endpoint": "http://127.0.0.1:9"}}, "s3")
    assert [item.sent for item in done] == [False]  # port 9 was never connected to
    outcome = Outcome(done, 0, about_status=True)
    assert not outcome.reproduced
    assert outcome.verdict.startswith("not replayable: ")
    assert "conformance run --rule" in outcome.verdict


def test_a_request_after_unsent_bytes_is_not_called_reproduced() -> None:
    """The failing GET came after a pipelined PUT written as bytes: today the PUT is not sent,
    so the GET's 404 would look reproduced while it only shows the PUT missing (review)."""
    from conformance.recorded import RAW, from_exchange
    from conformance.replay import Answer, Outcome, Replayed

    put = from_exchange({"method": RAW, "url": "http://h/b/k", "status": 200})
    get = from_exchange({"method": "GET", "url": "http://h/b/k", "status": 404,
                         "body_excerpt": "<Code>NoSuchKey</Code>"})  # fmt: skip
    missing = Answer(404, {}, "<Code>NoSuchKey</Code>")
    done = [Replayed(put, "http://h/b/k", Answer(None, {}, "(not sent)"), [], sent=False),
            Replayed(get, "http://h/b/k", missing, [])]  # fmt: skip
    outcome = Outcome(done, 1, about_status=True)
    assert not outcome.reproduced and outcome.verdict.startswith("not replayable: ")


def test_a_failure_whose_state_was_not_all_recorded_is_not_called_not_reproduced() -> None:
    """A listing failed on a bucket of 6 keys whose evidence holds 3 of them: today's listing
    differs because the replayed bucket is not the run's, not because of a fix."""
    from conformance.recorded import from_exchange
    from conformance.replay import Answer, Outcome, Replayed, replay_case

    made = from_exchange({"method": "PUT", "url": "http://h/b", "status": 200})
    listing = from_exchange({"method": "GET", "url": "http://h/b?max-keys=2", "status": 200,
                             "body_excerpt": "<Key>a/1</Key><Key>a/2</Key>"})  # fmt: skip
    other = Answer(200, {}, "<Key>c</Key><Key>d/x/1</Key>")
    done = [Replayed(made, "http://h/b", Answer(200, {}, ""), [], left_out=3),
            Replayed(listing, "http://h/b?max-keys=2", other, [])]  # fmt: skip
    outcome = Outcome(done, 1)
    assert outcome.left_out_before == 3
    assert outcome.verdict.startswith("not replayable as recorded: 3 earlier write(s)")
    assert "not reproduced" not in outcome.verdict
    same = Replayed(listing, "http://h/b?max-keys=2", Answer(200, {}, listing.response_body), [])
    assert Outcome([done[0], same], 1).verdict.startswith("reproduced, but 3 earlier write(s)")
    assert Outcome(done[1:], 0).verdict.startswith("not reproduced as recorded")  # nothing lost

    case = {"case": "v1", "evidence": [
        {"method": "GET", "url": "http://127.0.0.1:9/b?max-keys=2", "status": 200,
         "left_out": 2},
    ]}  # fmt: skip
    s3 = {"endpoint": "http://127.0.0.1:9", "access_key_id": "a", "secret_access_key": "b"}
    sent = replay_case(case, {"s3": s3}, "s3")
    assert sent[0].left_out == 2
    assert any("2 write(s) of the run not recorded" in note for note in sent[0].notes)
