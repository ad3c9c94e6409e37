"""The mutation harness's table, stale ledger entries and carried kills (bench/mutation).

On a small module in a temporary tree and a real cosmic-ray session: each verdict lands in its
own column, an unjudged mutant counts against the score, a ledger entry whose mutant was killed
or is no longer made is reported stale, and --carry-killed takes an earlier kill only for the
very same mutant (same line number, line text, operator and occurrence).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome as Outcome
from cosmic_ray.work_item import WorkerOutcome, WorkItem, WorkResult

from bench.mutation import carry, execute, ledger, plan, report
from bench.mutation import verdict as v

MODULE = "m.py"
SOURCE = """\
def f(state):
    if state is None:
        return 1
    return 2 if state > 3 else 4
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / MODULE).write_text(SOURCE, "utf-8")
    return tmp_path


def items(root: Path) -> list[WorkItem]:
    return plan.mutants(plan.load_config(), MODULE, root=root)


def pick(found: list[WorkItem], operator: str, line: int) -> WorkItem:
    hits = [
        w
        for w in found
        if w.mutations[0].operator_name == f"core/{operator}"
        and w.mutations[0].start_pos[0] == line
    ]
    return hits[0]


def result(root: Path, item: WorkItem, found: v.Verdict | str, hashed: bool = True) -> WorkResult:
    spec = item.mutations[0]
    source = (root / MODULE).read_bytes()
    diff = ledger.mutant_diff(source.decode("utf-8"), spec.operator_name, spec.occurrence)
    output = found if isinstance(found, str) else found.line()
    sha = v.module_sha256(source) if hashed else None
    return execute.settle(WorkResult(WorkerOutcome.NORMAL, output, Outcome.KILLED, diff), sha)


@pytest.fixture
def session(tree: Path) -> Iterator[WorkDB]:
    with use_db(str(tree / "session.sqlite"), WorkDB.Mode.create) as db:
        db.add_work_items(items(tree))
        yield db


def test_each_verdict_has_its_column_and_stale_entries_are_named(
    tree: Path, session: WorkDB
) -> None:
    found = items(tree)
    listed = pick(found, "AddNot", 2)  # survives, and the ledger excuses it
    killed = pick(found, "ReplaceComparisonOperator_Gt_GtE", 4)  # killed, yet in the ledger
    blind = pick(found, "ReplaceComparisonOperator_Gt_Lt", 4)  # survives, not in the ledger
    slow = pick(found, "NumberReplacer", 3)
    broken = pick(found, "ReplaceComparisonOperator_Is_IsNot", 2)
    started = pick(found, "NumberReplacer", 4)
    verdicts: list[tuple[WorkItem, v.Verdict | str]] = [
        (listed, v.Verdict(v.SURVIVED)), (killed, v.Verdict(v.KILLED, kills=["d x.rule"])),
        (blind, v.Verdict(v.SURVIVED)), (slow, "timeout"),
        (broken, v.Verdict(v.OTHER, notes=["d x.rule: setup ERROR (not a kill)"])),
        (started, v.Verdict(v.START, notes=["d: the reference did not start"])),
    ]  # fmt: skip
    for item, found_verdict in verdicts:
        session.set_result(item.job_id, result(tree, item, found_verdict))
    ids = ledger.identify(MODULE, found, tree, lambda line: True)
    gone = ledger.MutantId(MODULE, "f", "AddNot", "if state is 7:", "if not state is 7:", 0)
    known = {
        ids[listed.job_id]: {"kind": "equivalent", "reason": "r"},
        ids[killed.job_id]: {"kind": "out-of-spec", "reason": "r"},
        gone: {"kind": "equivalent", "reason": "r"},
    }

    def of(module: str) -> list[WorkItem]:
        return items(tree)

    summary = report.summarise(session, of, known, full_modules=[MODULE], root=tree)
    row = summary.rows[MODULE]
    assert (row.mutants, row.killed, row.survived, row.equivalent, row.out_of_spec) == (
        6, 1, 1, 1, 0,
    )  # fmt: skip
    assert (row.timeouts, row.start_failures, row.collection_errors, row.other_exits) == (
        1, 1, 0, 1,
    )  # fmt: skip
    assert row.score == pytest.approx(100 * 1 / 5)  # the unjudged count as not killed
    assert [m.line for m in summary.unlisted] == [4]
    assert "operator: ReplaceComparisonOperator_Gt_Lt" in summary.unlisted[0].stub
    assert len(summary.unjudged) == 3
    assert len(summary.stale) == 2
    assert any(s.startswith("now killed (d x.rule)") for s in summary.stale), summary.stale
    assert any(s.startswith("no longer made") and "is 7" in s for s in summary.stale)
    sampled = report.summarise(session, of, known, full_modules=[], root=tree)
    assert len(sampled.stale) == 1  # a sampled run cannot tell an entry is no longer made
    assert "| m.py | 6 | 1 | 1 | 0 | 1 | 0 | 1 | 1 | 0 | 1 | 0 | 0 | 20% |" in report.table(summary)


def _carry(
    tree: Path, new_source: str, hashed: bool = True
) -> tuple[int, int, dict[str, WorkResult]]:
    """An earlier session on SOURCE (one proven kill, one kill of an older harness), then the
    module becomes `new_source`; carry into a fresh session. `hashed`: the proven kill records
    the module's sha256 (an older harness's verdict did not)."""
    old_items = items(tree)
    proven = pick(old_items, "ReplaceComparisonOperator_Gt_GtE", 4)
    exit_only = pick(old_items, "AddNot", 2)
    with use_db(str(tree / "old.sqlite"), WorkDB.Mode.create) as old:
        old.add_work_items(old_items)
        kill = result(tree, proven, v.Verdict(v.KILLED, kills=["d r"]), hashed)
        old.set_result(proven.job_id, kill)
        spec = exit_only.mutations[0]
        diff = ledger.mutant_diff(SOURCE, spec.operator_name, spec.occurrence)
        old.set_result(
            exit_only.job_id, WorkResult(WorkerOutcome.NORMAL, "exit 1", Outcome.KILLED, diff)
        )
    (tree / MODULE).write_text(new_source, "utf-8")
    new_items = items(tree)
    with use_db(str(tree / "new.sqlite"), WorkDB.Mode.create) as db:
        db.add_work_items(new_items)
        wanted = {w.job_id: w for w in new_items}
        carried, dropped = carry.carry_killed(db, tree / "old.sqlite", wanted, tree)
        return carried, dropped, dict(db.results)


def test_a_kill_is_carried_for_the_same_mutant_only(tree: Path) -> None:
    carried, dropped, results = _carry(tree, SOURCE)
    assert (carried, dropped) == (1, 0)  # the exit-status "kill" of an older harness is not
    (stored,) = results.values()
    assert v.from_output(stored.output) == v.Verdict(v.KILLED, kills=["d r"])


@pytest.mark.parametrize(
    "new_source",
    [
        "# a line above moves every mutant down\n" + SOURCE,  # same occurrence, other line
        SOURCE.replace("state > 3", "state > 5"),  # same line and occurrence, other text
        SOURCE + "\n\nLIMIT = 3\n",  # same line, text and occurrence; the module changed below
    ],
)
def test_a_kill_is_dropped_when_its_line_moved_or_changed(tree: Path, new_source: str) -> None:
    assert _carry(tree, new_source)[:2] == (0, 1)


def test_a_kill_without_the_module_hash_is_not_carried(tree: Path) -> None:
    """A verdict stored by a harness that did not record the module's sha256 cannot prove the
    module is unchanged: the mutant runs again."""
    assert _carry(tree, SOURCE, hashed=False)[:2] == (0, 1)


def test_the_stored_result_records_the_module_hash_before_the_verdict(tree: Path) -> None:
    item = pick(items(tree), "AddNot", 2)
    stored = result(tree, item, v.Verdict(v.SURVIVED))
    assert v.module_hash_of(stored.output) == v.module_sha256((tree / MODULE).read_bytes())
    assert (stored.output or "").splitlines()[-1].startswith(v.MARKER)


def test_runs_made_side_by_side_merge_into_one_table(tree: Path) -> None:
    from bench.mutation import merge

    found = items(tree)
    halves = (found[: len(found) // 2], found[len(found) // 2 :])
    for n, half in enumerate(halves):
        (tree / f"run{n}").mkdir()
        with use_db(str(tree / f"run{n}" / "session.sqlite"), WorkDB.Mode.create) as db:
            db.add_work_items(half)
            for item in half:
                db.set_result(item.job_id, result(tree, item, v.Verdict(v.KILLED, kills=["d r"])))
    assert merge.main([str(tree / "out"), str(tree / "run0"), str(tree / "run1")], tree) == 0
    doc = json.loads((tree / "out" / "results.json").read_text("utf-8"))
    assert [(r["module"], r["mutants"], r["killed"]) for r in doc["rows"]] == [
        (MODULE, len(found), len(found))
    ]


def test_a_module_measured_on_two_sets_of_bytes_names_none(tree: Path, session: WorkDB) -> None:
    """A review's finding: a session resumed over changed bytes mixes results of both, and the
    summary named the first sha256 it met, so publish took a mixed figure for one of a single
    reference. It names none now (publish then refuses a full run); a result the harness could
    not make (no NORMAL outcome) records the bytes too, but judges none: it is not counted."""
    first, second = items(tree)[:2]
    session.set_result(first.job_id, result(tree, first, v.Verdict(v.SURVIVED)))
    aborted = WorkResult(WorkerOutcome.ABNORMAL, "cosmic-ray could not make it", None, None)
    session.set_result(second.job_id, execute.settle(aborted, "ab" * 32))
    assert v.module_hash_of(dict(session.results)[second.job_id].output) == "ab" * 32
    summary = report.summarise(session, lambda _: items(tree), {}, root=tree)
    assert summary.module_sha256 == {MODULE: v.module_sha256((tree / MODULE).read_bytes())}
    other = WorkResult(WorkerOutcome.NORMAL, v.Verdict(v.SURVIVED).line(), Outcome.SURVIVED)
    session.set_result(second.job_id, execute.settle(other, "ab" * 32))  # other bytes
    summary = report.summarise(session, lambda _: items(tree), {}, root=tree)
    assert summary.module_sha256 == {}

    session.set_result(second.job_id, result(tree, second, v.Verdict(v.SURVIVED)))
    summary = report.summarise(session, lambda _: items(tree), {}, root=tree)
    assert summary.module_sha256 == {MODULE: v.module_sha256((tree / MODULE).read_bytes())}

    # a second review's finding: an older harness's result (no bytes named) stands on resume
    # beside hashed ones: which bytes it judged is unknown, so the module names none
    unhashed = result(tree, second, v.Verdict(v.KILLED, kills=["r"]), hashed=False)
    assert execute.finished(unhashed, retry_unjudged=False)
    session.set_result(second.job_id, unhashed)
    summary = report.summarise(session, lambda _: items(tree), {}, root=tree)
    assert summary.module_sha256 == {}
