"""The mutation harness counts a kill only when a rule proves it (bench/mutation/verdict.py).

A kill is a rule that PASSed on the baseline (the unmutated tree, same selection and date) and
FAILs, or ERRORs outside setup, under the mutant. A timeout, a reference that did not start, a
collection error and any other non-zero exit are their own columns and never kills; these
feed fake results.json documents, exit statuses and timeouts through the classification.
"""

from __future__ import annotations

from typing import Any

import pytest
from cosmic_ray.work_item import TestOutcome as Outcome
from cosmic_ray.work_item import WorkerOutcome, WorkResult

from bench.mutation import execute, suite_cmd
from bench.mutation import verdict as v

DAY, LATER = "2026-11-26", "2023-01-30"


def doc(rules: dict[str, str], cases: list[dict[str, Any]] | None = None, **run: Any) -> dict:
    """A results.json with these rule statuses; a PASS case per rule unless `cases` given."""
    if cases is None:
        cases = [{"rule_id": r, "status": s, "message": None, "case": ""} for r, s in rules.items()]
    return {"rules": [{"id": r, "status": s} for r, s in rules.items()], "cases": cases,
            "run": {"problems": run.get("problems", [])}}  # fmt: skip


def case(rule: str, status: str, message: str | None = None, name: str = "") -> dict[str, Any]:
    return {"rule_id": rule, "status": status, "message": message, "case": name}


def baseline(*runs: v.Run) -> v.Baseline:
    return v.Baseline({run.as_of: run for run in runs})


CLEAN = v.condense(doc({"a.one": "PASS", "a.two": "PASS", "a.old": "FAIL"},
                       [case("a.one", "PASS"), case("a.two", "PASS"),
                        case("a.old", "FAIL", "AssertionError: already broken")]),
                   1, DAY, stop_first=False)  # fmt: skip
BASE = baseline(CLEAN)


def judge(mutant_doc: dict[str, Any] | None, exit_code: int, base: v.Baseline = BASE) -> v.Verdict:
    return v.classify(base, [v.condense(mutant_doc, exit_code, DAY, stop_first=True)])


def test_a_rule_that_passed_and_now_fails_is_a_kill() -> None:
    found = judge(doc({"a.one": "FAIL"}, [case("a.one", "FAIL", "AssertionError: 200 != 404")]), 1)
    assert (found.cls, found.kills) == (v.KILLED, [f"{DAY} a.one"])


def test_an_error_in_the_call_is_a_kill() -> None:
    error = case("a.two", "ERROR", "ConnectionError: the server closed the connection")
    assert judge(doc({"a.two": "ERROR"}, [error]), 1).cls == v.KILLED


@pytest.mark.parametrize(
    "message",
    [
        "setup: botocore ClientError: CreateBucket answered 503",
        "SetupFailed: setup did not hold, the rule was not checked: PUT /b answered 500",
        "teardown: cleanup of bucket b failed",
    ],
)
def test_a_setup_or_teardown_error_is_not_a_kill(message: str) -> None:
    found = judge(doc({"a.one": "ERROR"}, [case("a.one", "ERROR", message)]), 1)
    assert found.cls == v.OTHER and "not a kill" in found.notes[0], found


def test_a_rule_that_failed_on_the_baseline_cannot_kill() -> None:
    """Its failure again under the mutant is no news: with nothing else wrong, a survivor."""
    again = case("a.old", "FAIL", "AssertionError: already broken")
    assert judge(doc({"a.old": "FAIL"}, [again]), 1) == v.Verdict(v.SURVIVED)
    assert BASE.not_passing() == [f"{DAY} a.old FAIL"]
    assert not BASE.clean(DAY)  # so mutants of this selection run without -x


@pytest.mark.parametrize("prefix", ["setup: ", "setup: Failed: "], ids=["plugin", "pytest-fail"])
def test_a_reference_that_did_not_start_is_its_own_column(prefix: str) -> None:
    """Both wordings a run gives a reference that exited before it was ready: the plugin's, and
    pytest.fail's (the reference-only pre-flight rule's setup: storage's start-up mutants)."""
    message = f"{prefix}target 'reference': reference implementation exited with code 1 before"
    found = judge(doc({"a.one": "ERROR"}, [case("a.one", "ERROR", message)]), 1)
    assert found.cls == v.START


@pytest.mark.parametrize("exit_code", [2, 4, 5])
def test_nothing_collected_or_a_usage_error_is_a_collection_error(exit_code: int) -> None:
    assert judge(None, exit_code).cls == v.COLLECTION


def test_a_module_that_did_not_import_is_a_collection_error() -> None:
    broken = case("a.one", "ERROR", "collection error in x.py: ImportError", name="collection")
    found = judge(doc({"a.one": "ERROR"}, [broken], problems=[{"kind": "collection"}]), 1)
    assert found.cls == v.COLLECTION


def test_a_non_zero_exit_without_results_or_failing_case_is_other() -> None:
    assert judge(None, 1).cls == v.OTHER
    clean = baseline(v.condense(doc({"a.one": "PASS"}), 0, DAY, stop_first=False))
    assert judge(doc({"a.one": "PASS"}), 1, clean).cls == v.OTHER
    assert judge(doc({"a.one": "PASS"}), 0, clean).cls == v.SURVIVED


def test_a_rule_not_run_or_not_applicable_under_the_mutant_is_not_a_kill() -> None:
    assert judge(doc({"a.one": "N/A", "a.two": "UNTESTED"}), 0) == v.Verdict(v.SURVIVED)


def test_a_kill_counts_against_the_baseline_of_its_own_date() -> None:
    """a.one fails on the baseline at LATER only: its failure at LATER proves nothing, its
    failure at DAY does."""
    later = v.condense(doc({"a.one": "FAIL"}, [case("a.one", "FAIL", "x")]), 1, LATER, False)
    base = baseline(CLEAN, later)
    fails = doc({"a.one": "FAIL"}, [case("a.one", "FAIL", "AssertionError")])
    at_later = v.condense(fails, 1, LATER, stop_first=False)
    at_day = v.condense(doc({"a.one": "PASS"}), 0, DAY, stop_first=True)
    assert v.classify(base, [at_day, at_later]).cls == v.SURVIVED
    at_day = v.condense(fails, 1, DAY, stop_first=True)
    assert v.classify(base, [at_day, at_later]).kills == [f"{DAY} a.one"]


def test_a_kill_wins_over_a_setup_error_elsewhere() -> None:
    cases = [case("a.one", "ERROR", "setup: flaky clock"), case("a.two", "FAIL", "Assertion")]
    assert judge(doc({"a.one": "ERROR", "a.two": "FAIL"}, cases), 1).kills == [f"{DAY} a.two"]


def test_the_verdict_travels_through_the_test_commands_output() -> None:
    found = v.Verdict(v.KILLED, kills=[f"{DAY} a.one"])
    assert v.from_output(f"pytest noise\nMUTANT-VERDICT fake\n{found.line()}\n") == found
    assert v.from_output("timeout") == v.Verdict(
        v.TIMEOUT, notes=[v.from_output("timeout").notes[0]]
    )  # type: ignore[union-attr]
    assert v.from_output("no verdict here") is None


def _raw(output: str, outcome: Outcome = Outcome.KILLED) -> WorkResult:
    return WorkResult(WorkerOutcome.NORMAL, output, outcome, "--- a\n+++ b\n-x\n+y")


# cosmic-ray calls every non-zero exit KILLED; only a proven kill stays KILLED
SETTLED = [
    (v.Verdict(v.KILLED, kills=["d r"]).line(), Outcome.KILLED, v.KILLED),
    (v.Verdict(v.OTHER, notes=["n"]).line(), Outcome.INCOMPETENT, v.OTHER),
    (v.Verdict(v.START, notes=["n"]).line(), Outcome.INCOMPETENT, v.START),
    (v.Verdict(v.COLLECTION, notes=["n"]).line(), Outcome.INCOMPETENT, v.COLLECTION),
    ("timeout", Outcome.INCOMPETENT, v.TIMEOUT),
    ("Traceback: crashed before a verdict", Outcome.INCOMPETENT, v.OTHER),
]


@pytest.mark.parametrize(("output", "settled", "cls"), SETTLED)
def test_the_harness_stores_the_verdict_not_the_exit_status(
    output: str, settled: Outcome, cls: str
) -> None:
    result = execute.settle(_raw(output))
    assert result.test_outcome == settled
    found = v.from_output(result.output)
    assert found is not None and found.cls == cls
    assert execute.finished(result, retry_unjudged=False)
    assert execute.finished(result, retry_unjudged=True) == (cls == v.KILLED)


def test_a_survivor_is_stored_as_one() -> None:
    result = execute.settle(_raw(v.Verdict(v.SURVIVED).line(), Outcome.SURVIVED))
    assert result.test_outcome == Outcome.SURVIVED


def test_an_older_harness_result_is_run_again() -> None:
    assert not execute.finished(_raw("exit 1"), retry_unjudged=False)


def test_a_stop_at_first_failure_that_is_not_a_kill_is_run_again_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """-x stopped on a setup ERROR: the run is repeated without -x, where a later rule kills."""
    clean = baseline(v.condense(doc({"a.one": "PASS", "a.two": "PASS"}), 0, DAY, False))
    setup = case("a.one", "ERROR", "setup: flaky clock")
    stopped = doc({"a.one": "ERROR", "a.two": "UNTESTED"}, [setup])
    full = doc({"a.one": "ERROR", "a.two": "FAIL"}, [setup, case("a.two", "FAIL", "Assert")])
    calls: list[bool] = []

    def fake_run(
        args: Any, selection: Any, day: str, stop_first: bool, deselect: Any = None
    ) -> tuple[v.Run, str]:
        calls.append(stop_first)
        return v.condense(stopped if stop_first else full, 1, day, stop_first), ""

    monkeypatch.setattr(suite_cmd, "_run", fake_run)
    found = suite_cmd._judge(None, [], [DAY], clean)  # type: ignore[arg-type]
    assert calls == [True, False]
    assert found.kills == [f"{DAY} a.two"]


@pytest.mark.parametrize("status", ["FAIL", "ERROR"])
def test_a_case_stopped_by_the_case_timeout_is_a_timeout_not_a_kill(status: str) -> None:
    """Slower is not wrong: a case that ran the run's whole --case-timeout was stopped, and
    hypothesis words that as a wrapped exception, so its duration decides, not its message."""
    slow = {**case("a.one", status, "_WrappedBaseException() [single exception in FlakyFailure]"),
            "duration": 60.4}  # fmt: skip
    mutant = v.condense(doc({"a.one": status}, [slow]), 1, DAY, True, case_timeout=60)
    found = v.classify(BASE, [mutant])
    assert found.cls == v.TIMEOUT and "case-timeout" in found.notes[0]
    quick = {**slow, "duration": 12.0}  # a failure well inside the bound still kills
    mutant = v.condense(doc({"a.one": status}, [quick]), 1, DAY, True, case_timeout=60)
    assert v.classify(BASE, [mutant]).cls == v.KILLED


def test_a_slow_case_does_not_hide_a_kill_of_another_rule() -> None:
    slow = {**case("a.one", "FAIL", "Failed: Timeout >60.0s"), "duration": 61.0}
    wrong = {**case("a.two", "FAIL", "AssertionError: 200 != 404"), "duration": 3.0}
    mutant = v.condense(doc({"a.one": "FAIL", "a.two": "FAIL"}, [slow, wrong]), 1, DAY, True, 60)
    assert v.classify(BASE, [mutant]).kills == [f"{DAY} a.two"]


def test_the_harness_bounds_a_case_as_a_users_run_does() -> None:
    from conformance.cli_run import RunOptions

    assert RunOptions.case_timeout == suite_cmd.CASE_TIMEOUT  # was 60: slow mutants "killed"


def test_a_stopped_case_is_left_out_of_the_rerun_and_still_counted() -> None:
    """-x stopped on a case the case timeout ended: the rerun without -x leaves that case out
    (it would take the whole bound again), and the mutant nothing else kills is a timeout."""
    slow = {**case("a.one", "FAIL", "Failed: Timeout >60.0s"), "duration": 61.0,
            "nodeid": "suite/test_a.py::test_one"}  # fmt: skip
    first = v.condense(doc({"a.one": "FAIL"}, [slow]), 1, DAY, True, case_timeout=60)
    assert first.slow == ["suite/test_a.py::test_one"]
    rerun = v.condense(doc({"a.two": "PASS"}, [case("a.two", "PASS")]), 0, DAY, False, 60)
    assert v.classify(BASE, [v.keep_slow(rerun, first)]).cls == v.TIMEOUT
    wrong = v.condense(doc({"a.two": "FAIL"}, [case("a.two", "FAIL", "AssertionError")]), 1,
                       DAY, False, 60)  # fmt: skip
    assert v.classify(BASE, [v.keep_slow(wrong, first)]).kills == [f"{DAY} a.two"]


def test_a_start_failure_that_took_the_whole_bound_stays_a_start_failure() -> None:
    started = {**case("a.one", "ERROR", "setup: target 'reference': exited"), "duration": 61.0}
    assert v.case_kind(started, 60) == v.START_KIND


def test_a_baseline_of_another_case_bound_is_not_used(tmp_path: Any) -> None:
    """A baseline stores the case bound its runs had; one of another bound (an older harness's
    60 s, unrecorded) judges no mutant: a rule stopped there may pass under 300 s."""
    import json

    old = v.condense(doc({"a.one": "PASS"}), 0, DAY, False)  # no bound recorded
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(baseline(old).to_json()), "utf-8")
    code = suite_cmd.main(["--rule", "a.", "--baseline", str(path)])
    assert code == 1
    now = v.condense(doc({"a.one": "PASS"}), 0, DAY, False, float(suite_cmd.CASE_TIMEOUT))
    assert not baseline(now).bound_differs(float(suite_cmd.CASE_TIMEOUT))
    assert baseline(now).bound_differs(60.0)


def test_what_counts_as_stopped_by_the_case_timeout() -> None:
    """The bound reached (whatever the words), or pytest-timeout's words within the slack (a
    fixture's setup too); a plain failure a little before the bound, an impossible duration or
    no bound are failures (break helper's findings)."""

    def kind(status: str, message: str, duration: Any, bound: float | None = 300.0) -> Any:
        return v.case_kind({**case("a.one", status, message), "duration": duration}, bound)

    assert kind("FAIL", "_WrappedBaseException()", 300.2) == v.SLOW_KIND
    assert kind("ERROR", "setup: Failed: Timeout >300.0s", 298.0) == v.SLOW_KIND
    assert kind("FAIL", "AssertionError: 200 != 404", 296.0) == v.FAILS
    assert kind("FAIL", "AssertionError", float("inf")) == v.FAILS
    assert kind("FAIL", "AssertionError", "nan") == v.FAILS
    assert kind("FAIL", "Failed: Timeout >300.0s", 301.0, bound=-1) == v.FAILS


def test_an_empty_baseline_judges_nothing(tmp_path: Any) -> None:
    path = tmp_path / "baseline.json"
    path.write_text("{}", "utf-8")
    assert suite_cmd.main(["--rule", "a.", "--baseline", str(path)]) == 1


def test_the_rerun_leaves_out_exactly_the_stopped_test(pytester: Any) -> None:
    """pytest's --deselect takes a prefix: test_get_range also left out
    test_get_range_reports_its_range, a kill lost. The harness's own option matches exactly."""
    pytester.makepyfile(test_p="def test_get_range(): pass\ndef test_get_range_more(): pass\n")
    done = pytester.runpytest(
        "-p", "bench.mutation.order_plugin", "--ec-deselect-exact", "test_p.py::test_get_range"
    )
    done.assert_outcomes(passed=1, deselected=1)


@pytest.mark.parametrize("bound", ["abc", "0", "-5", "2.5"])
def test_a_case_bound_that_is_no_whole_positive_number_is_a_usage_error(
    bound: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a traceback: `conformance run --case-timeout` takes whole seconds above 0."""
    with pytest.raises(SystemExit) as stopped:
        suite_cmd.main(["--case-timeout", bound, "--baseline", "unused.json"])
    assert stopped.value.code == 2
    assert "--case-timeout" in capsys.readouterr().err


def test_the_whole_round_rule_runs_first_each_module_kept_together(pytester: Any) -> None:
    """A mutant that stops delivery fails `logs.logpush.reference-delivers-round` and leaves
    the round's other tests not checked: run first, -x stops at that kill after one round, not
    after a full rerun waiting out the log wait in every module (300-480 s per such mutant)."""
    mark = '@pytest.mark.rule("logs.logpush.reference-delivers-round")\n'
    pytester.makeini("[pytest]\nmarkers =\n    rule: rule ids\n")
    pytester.makepyfile(
        test_a="def test_a(): pass\n",
        test_b_round=f"import pytest\ndef test_x(): pass\n{mark}def test_whole(): pass\n",
        test_c_round=f"import pytest\ndef test_y(): pass\n{mark}def test_whole2(): pass\n",
    )
    done = pytester.runpytest("-p", "bench.mutation.order_plugin", "--collect-only", "-q")
    order = [line for line in done.outlines if "::" in line]
    assert order == [
        "test_b_round.py::test_whole", "test_b_round.py::test_x",
        "test_c_round.py::test_whole2", "test_c_round.py::test_y", "test_a.py::test_a",
    ]  # fmt: skip
