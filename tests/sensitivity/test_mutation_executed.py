"""Mutants on lines no suite test executes are recorded `not executed`, unrun (bench/mutation).

The record is made across a subprocess, as the suite launches the reference: on a small tree a
command starts a child Python that calls one branch of a module; the other branch's lines are
the ones recorded as never run, and only a mutant wholly on them is skipped. A skipped mutant
is a survivor in its own column, counts as not killed, and still needs a ledger entry.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cosmic_ray.mutating import mutate_and_test
from cosmic_ray.work_db import WorkDB, use_db
from helpers.mutation_module import MODULE, SOURCE, write_tree

from bench.mutation import execute, executed, plan, report
from bench.mutation import verdict as v

pytest.importorskip("coverage")

CHILD = "import subprocess, sys; subprocess.run([sys.executable, '-c', {code!r}], check=True)"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)


def test_a_child_process_lines_are_recorded_and_the_rest_is_unexecuted(tree: Path) -> None:
    code = "import reference_impl.m as m; m.f(None)"
    command = [sys.executable, "-c", CHILD.format(code=code)]
    target = tree / "lines.json"
    executed.record(command, target, timeout=60, root=tree)
    lines = executed.load(target)[MODULE]
    assert lines == frozenset({4, 5, 6})  # the statement over lines 4-5 is both its lines
    assert "reference_impl/__init__.py" not in executed.load(target)  # nothing in it to miss


def test_a_failing_command_is_not_a_record(tree: Path) -> None:
    with pytest.raises(RuntimeError, match="exited 3"):
        executed.record([sys.executable, "-c", "raise SystemExit(3)"], tree / "x", 60, tree)


def test_only_a_mutant_wholly_on_unexecuted_lines_is_skipped(tree: Path) -> None:
    found = plan.mutants(plan.load_config(), MODULE, root=tree)
    unexecuted = {MODULE: frozenset({4, 5, 6})}
    on = {w.mutations[0].start_pos[0]: executed.never_executed(w, unexecuted) for w in found}
    assert on == {2: False, 3: False, 4: True, 5: True, 6: True}
    assert not any(executed.never_executed(w, {}) for w in found)


def test_a_not_executed_mutant_is_an_unlisted_survivor_in_its_own_column(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)  # cosmic-ray mutates module paths relative to the working directory
    found = plan.mutants(plan.load_config(), MODULE, root=tree)
    item = next(w for w in found if w.mutations[0].start_pos[0] == 6)
    sha = v.module_sha256((tree / MODULE).read_bytes())
    raw = mutate_and_test(item.mutations, execute.not_executed_command(), 60)
    result = execute.settle(raw, sha)
    assert (tree / MODULE).read_text("utf-8") == SOURCE  # made for its diff, put back
    assert "-    return total if total > 3 else 4" in (result.diff or "")
    found_verdict = v.from_output(result.output)
    assert found_verdict is not None and found_verdict.cls == v.NOT_EXECUTED
    assert found_verdict.judged  # the suite cannot kill it: a survivor, not an unjudged one
    with use_db(str(tree / "s.sqlite"), WorkDB.Mode.create) as db:
        db.add_work_items([item])
        db.set_result(item.job_id, result)
        summary = report.summarise(db, lambda module: found, {}, root=tree)
    row = summary.rows[MODULE]
    assert (row.mutants, row.killed, row.survived, row.not_executed, row.score) == (
        1, 0, 0, 1, 0.0,
    )  # fmt: skip
    assert [m.cls for m in summary.unlisted] == [v.NOT_EXECUTED]
    assert "not executed" in report.survivors_md(summary)
