"""--rerun N: FLAKY versus broken, every attempt's evidence kept (pytester and a real reference)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.suite_runner import rule_status, run_suite

from conformance import results
from conformance.cli import build_parser, run_options
from conformance.cli_run import build_pytest_argv

# Attempt counts live in a file: pytest-rerunfailures reruns in the same process, but a
# counter in a file also holds under xdist.
INTERMITTENT = """
import pathlib
import pytest
from conformance.clients.evidence import Exchange, collector

def _attempt(name):
    path = pathlib.Path(__file__).with_name(name + ".count")
    n = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(n))
    collector.add(Exchange.build("get", f"http://t/{name}/{n}", 200 if n % 2 == 0 else 500))
    return n

@pytest.mark.rule("storage.put.ok")
def test_every_other_attempt():
    assert _attempt("flip") % 2 == 0, "odd attempt answered 500"

@pytest.mark.rule("logs.create.ok")
def test_always_broken():
    _attempt("steady")
    assert False, "steady deviation"

@pytest.mark.rule("gateway.chain.id")
def test_passes():
    _attempt("fine")
"""


def _run(suite: pytest.Pytester, *args: str) -> dict[str, Any]:
    suite.makepyfile(INTERMITTENT)
    out = suite.path / "results.json"
    suite.runpytest("--results", str(out), *args)
    document: dict[str, Any] = json.loads(out.read_text())
    results.validate(document)
    return document


def _case(doc: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [c for c in doc["cases"] if c["nodeid"].endswith(name)]
    assert isinstance(found, dict)
    return found


def _rule(doc: dict[str, Any], rule_id: str) -> str:
    return next(str(r["status"]) for r in doc["rules"] if r["id"] == rule_id)


def test_rerun_tells_flaky_from_broken(suite: pytest.Pytester) -> None:
    doc = _run(suite, "--rerun", "2")
    flaky = _case(doc, "test_every_other_attempt")
    assert flaky["status"] == "FLAKY"
    assert "odd attempt answered 500" in flaky["message"]
    assert [a["status"] for a in flaky["attempts"]] == ["FAIL", "PASS"]
    urls = [[e["url"] for e in a["evidence"]] for a in flaky["attempts"]]
    assert urls == [["http://t/flip/1"], ["http://t/flip/2"]]  # each attempt its own evidence
    broken = _case(doc, "test_always_broken")
    assert broken["status"] == "FAIL"
    assert [a["status"] for a in broken["attempts"]] == ["FAIL"] * 3  # 1 run + 2 reruns
    assert "attempts" not in _case(doc, "test_passes")  # nothing rerun, nothing recorded
    assert _rule(doc, "storage.put.ok") == "FLAKY"
    assert _rule(doc, "logs.create.ok") == "FAIL"
    storage = doc["summary"]["areas"]["storage"]["MUST"]
    assert (storage["pass"], storage["flaky"], storage["score"]) == (0, 1, 0.0)
    assert doc["summary"]["certified"] is False


def test_without_rerun_the_intermittent_case_fails(suite: pytest.Pytester) -> None:
    doc = _run(suite)
    case = _case(doc, "test_every_other_attempt")
    assert (case["status"], "attempts" in case) == ("FAIL", False)
    assert _rule(doc, "storage.put.ok") == "FAIL"


def test_negative_rerun_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makepyfile(INTERMITTENT)
    result = suite.runpytest("--rerun", "-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.parametrize(
    ("statuses", "rolled"),
    [
        (["PASS", "FLAKY"], "FLAKY"),
        (["FLAKY", "ERROR", "XPASS"], "FLAKY"),
        (["FLAKY", "FAIL"], "FAIL"),
    ],
)
def test_flaky_roll_up(statuses: list[str], rolled: str) -> None:
    assert results.worst(statuses) == rolled


@pytest.mark.slow
@pytest.mark.parametrize(
    ("profile", "rerun", "expected"),
    [
        ({"deviate_chain_id_every_other": "true"}, "2", "FLAKY"),
        ({"deviate_chain_id_every_other": "true"}, "0", "FAIL"),
        ({"deviate_chain_id_override": "1"}, "2", "FAIL"),
    ],
    ids=["intermittent-rerun", "intermittent-once", "steady-rerun"],
)
def test_reference_deviation(
    tmp_path: Path, profile: dict[str, str], rerun: str, expected: str
) -> None:
    """Against the real reference: an intermittent deviation is FLAKY only with reruns."""
    rule = "gateway.network.sepolia-chain-id"
    doc = run_suite(tmp_path, rules=[rule], reference_profile=profile,
                    extra_args=["--rerun", rerun])  # fmt: skip
    assert rule_status(doc, rule) == expected, doc["_output"]


def test_conformance_run_passes_rerun_to_the_plugin() -> None:
    def argv(*args: str) -> list[str]:
        return build_pytest_argv(run_options(build_parser().parse_args(args), []), Path("d"), "x")

    rerun = argv("run", "--rerun", "2")
    assert rerun[rerun.index("--rerun") + 1] == "2"
    assert "--rerun" not in argv("run")
