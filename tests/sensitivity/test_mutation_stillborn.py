"""A mutant under which the reference cannot start is stillborn only on evidence
(bench/mutation/stillborn.py): the suite's run says the reference *exited* before it was ready,
and a second, direct start at the same date exits too. Then it is left out of the score (its
own column, like a mutant that does not compile); otherwise it stays a start failure, which
counts as not killed.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import pytest

from bench.mutation import report, stillborn, suite_cmd
from bench.mutation import verdict as v
from conformance.report.sensitivity import parse

DAY, LATER = "2026-11-26", "2023-01-30"
EXITED = "setup: target 'reference': reference implementation exited with code 1 before it was"
SLOW = "setup: target 'reference': reference implementation not ready within 30 s; stderr tail:"


def _doc(message: str) -> dict[str, Any]:
    cases = [{"rule_id": "a.one", "status": "ERROR", "message": message, "case": ""}]
    return {"rules": [{"id": "a.one", "status": "ERROR"}], "cases": cases, "run": {}}


def _clean(day: str) -> v.Run:
    passing = {"rules": [{"id": "a.one", "status": "PASS"}], "cases": [], "run": {}}
    return v.condense(passing, 0, day, stop_first=False)


def _judge(
    monkeypatch: pytest.MonkeyPatch, message: str, probed: str | None, days: list[str]
) -> tuple[v.Verdict, list[tuple[str, bool]], list[str]]:
    """Judge a mutant whose every run fails to start the reference with `message`; the probe
    answers `probed`. Returns the verdict, the runs made (date, -x) and the dates probed."""
    runs: list[tuple[str, bool]] = []
    probes: list[str] = []

    def fake_run(
        args: Any, selection: Any, day: str, stop_first: bool, deselect: Any = None
    ) -> tuple[v.Run, str]:
        runs.append((day, stop_first))
        return v.condense(_doc(message), 1, day, stop_first), ""

    def fake_probe(day: str, selection: Any, env: Any) -> str | None:
        probes.append(day)
        return probed

    monkeypatch.setattr(suite_cmd, "_run", fake_run)
    monkeypatch.setattr(stillborn, "probe", fake_probe)
    base = v.Baseline({day: _clean(day) for day in days})
    return suite_cmd._judge(None, [], days, base), runs, probes  # type: ignore[arg-type]


def test_an_exit_at_start_seen_twice_is_stillborn_and_not_run_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    why = f"a second start at {DAY} exited with code 1 before it was ready: TypeError: x"
    found, runs, probes = _judge(monkeypatch, EXITED, why, [DAY, LATER])
    assert found.cls == v.STILLBORN and why in found.notes
    assert runs == [(DAY, True), (LATER, True)] and probes == [DAY, LATER]
    assert found.settled and not found.judged


def test_a_reference_that_came_up_the_second_time_stays_a_start_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, runs, probes = _judge(monkeypatch, EXITED, None, [DAY])
    assert found.cls == v.START and not found.settled
    assert runs == [(DAY, True), (DAY, False)]  # run again in full, as before
    assert probes == [DAY]


def test_a_slow_reference_is_never_probed_and_stays_a_start_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found, _, probes = _judge(monkeypatch, SLOW, "would be stillborn", [DAY])
    assert found.cls == v.START and probes == []


def test_stillborn_at_one_date_but_alive_at_another_is_no_stillborn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A mutant the reference starts with at some date could be judged there."""
    answers = iter(["dead at the first date", None])
    runs: list[str] = []

    def fake_run(
        args: Any, selection: Any, day: str, stop_first: bool, deselect: Any = None
    ) -> tuple[v.Run, str]:
        runs.append(day)
        return v.condense(_doc(EXITED), 1, day, stop_first), ""

    monkeypatch.setattr(suite_cmd, "_run", fake_run)
    monkeypatch.setattr(stillborn, "probe", lambda *_: next(answers))
    base = v.Baseline({day: _clean(day) for day in (DAY, LATER)})
    found = suite_cmd._judge(None, [], [DAY, LATER], base)  # type: ignore[arg-type]
    assert found.cls == v.START


def test_stillborn_mutants_have_their_column_and_leave_the_score() -> None:
    row = report.Row("m.py", mutants=10, killed=6, equivalent=1, stillborn=2, start_failures=1)
    assert row.judged == 7 and row.score == pytest.approx(100 * 6 / 7)
    assert report.CLASS_COLUMN[v.STILLBORN] == "stillborn" and "stillborn" in report.COLUMNS
    area = {"area": "core", "mutants": 10, "killed": 6, "equivalent": 1, "out_of_spec": 0,
            "start_failures": 1, "stillborn": 2, "harness": 0, "score": 85.7}  # fmt: skip
    doc = {"measured": DAY, "commit": "abc1234", "scope": "full run", "full_run": True,
           "mutants": 10, "areas": [area]}  # fmt: skip
    phrase = parse(doc).areas[0].phrase()
    assert phrase.startswith("core 6 of 7 killed"), phrase
    assert "1 not judged" in phrase and "2 stillborn (the reference does not start)" in phrase


def test_the_probe_reads_the_selection_profile() -> None:
    args = ["--area", "storage", "--reference-profile", "migration_source_endpoint=http://x"]
    assert stillborn.profile_args(args) == ["--profile", "migration_source_endpoint=http://x"]


def test_the_probe_starts_the_real_reference() -> None:
    """A reference that refuses its configuration exits before it is ready (stillborn); the
    unmutated one comes up (not stillborn). Both through the real launcher command."""
    env = suite_cmd._env()
    today = dt.date.today().isoformat()
    bad = stillborn.probe(today, ["--reference-profile", "no_such_field=1"], env)
    assert bad is not None and "exited with code" in bad, bad
    assert stillborn.probe(today, [], dict(os.environ)) is None


def test_a_stillborn_mutant_is_listed_with_its_evidence() -> None:
    """Out of the score, never out of sight: survivors.md shows its diff and the probe's note."""
    why = "a second start at d exited with code 1 before it was ready: TypeError: x"
    mutant = report.Mutant("m.py", "AddNot", 3, 0, v.STILLBORN, notes=[why], diff="-a\n+b")
    text = report.survivors_md(report.Summary(mutants=[mutant]))
    assert "m.py:3 (AddNot): STILLBORN" in text and why in text and "+b" in text
