"""A mutant runs only the rules whose tests executed its lines (bench/mutation/contexts.py).

The record is made across a subprocess, as the suite launches the reference: a child Python
started with the baseline's coverage environment runs one branch of a module in one test's
window and the other branch in another's; the context switch reaches it by signal and is
acknowledged before the next call. Lines run outside a test's window (the module's import) need
the whole selection; a mutant's plan is the union over its lines. A rule run alone is judged
against its own run on the unmutated tree, and only where it also passed in the whole one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.mutation_module import MODULE, write_tree

from bench.mutation import contexts, execute, executed, plan, suite_cmd
from bench.mutation import verdict as v
from bench.mutation.context_plugin import DAY_ENV, SHARED, _Switcher

pytest.importorskip("coverage")

# the child: imports the module (no context yet), then calls f per line read, answering each
CHILD = """\
import sys
import reference_impl.m as m
print("ready", flush=True)
for line in sys.stdin:
    m.f(None if line.strip() == "none" else int(line))
    print("done", flush=True)
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)


def _record(
    tree: Path,
    workdir: Path,
    steps: tuple[tuple[str, str], ...] = (("t_none", "none"), ("t_five", "5")),
    rules: dict[str, list[str]] | None = None,
    child_source: str = CHILD,
) -> dict[str, object] | None:
    """Run the child under the baseline's coverage, feeding each step's input in its test's
    window, and read the per-line record back as record() does."""
    env = executed.coverage_env(workdir, tree, contexts=True)
    child = subprocess.Popen(
        [sys.executable, "-c", child_source], cwd=tree, env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )  # fmt: skip
    assert child.stdin is not None and child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    switcher = _Switcher(workdir, "2026-01-01")
    for nodeid, arg in steps:
        switcher.switch(nodeid)
        child.stdin.write(arg + "\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "done"
    switcher.switch(SHARED)
    child.stdin.close()
    assert child.wait(60) == 0
    if rules is None:
        rules = {"t_none": ["r.none"], "t_five": ["r.five"]}
    (workdir / "rules-2026-01-01.json").write_text(json.dumps(rules), "utf-8")
    executed.unexecuted_lines(workdir, tree)  # combines the processes' data, as record() does
    return contexts.lines_by_context(workdir, tree)


def test_each_line_is_recorded_under_the_tests_that_ran_it_in_the_child(
    tree: Path, tmp_path: Path
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    doc = _record(tree, workdir)
    assert doc is not None
    found = contexts.Plans(doc)
    lines = found.modules[MODULE]
    by_line = {n: found.plans[i] for n, i in lines.items()}
    day = "2026-01-01"
    assert by_line[1] == {day: None}  # the def ran at import, in no test: the whole selection
    assert by_line[2] == {day: ["r.five", "r.none"]}
    assert by_line[3] == {day: ["r.none"]}
    assert by_line[4] == by_line[5] == by_line[6] == {day: ["r.five"]}


LAZY = """\
LIMIT = 3


class Box:
    size = LIMIT + 1


def g(n):
    return n < LIMIT
"""


def test_a_lazily_imported_module_level_line_needs_the_whole_selection(
    tree: Path, tmp_path: Path
) -> None:
    """A module first imported inside a test's window (a lazy import in a function): its module
    and class-body lines ran once, for that test, but what they made serves every later test,
    so they need the whole selection; its function body is still the test's own."""
    (tree / "reference_impl" / "lazy.py").write_text(LAZY, "utf-8")
    workdir = tmp_path / "work"
    workdir.mkdir()
    child_source = CHILD.replace("import reference_impl.m as m", "import importlib")
    child_source = child_source.replace(
        'm.f(None if line.strip() == "none" else int(line))',
        'importlib.import_module("reference_impl.lazy").g(int(line))',
    )
    doc = _record(tree, workdir, (("t_one", "1"),), {"t_one": ["r.one"]}, child_source)
    assert doc is not None
    found = contexts.Plans(doc)
    by_line = {n: found.plans[i] for n, i in found.modules["reference_impl/lazy.py"].items()}
    day = "2026-01-01"
    assert by_line[1] == by_line[4] == by_line[5] == by_line[8] == {day: None}
    assert by_line[9] == {day: ["r.one"]}


def test_function_body_lines_are_the_lines_run_per_call() -> None:
    assert contexts.function_body_lines(LAZY) == frozenset({9})


MEMOIZED = """\
import functools
from functools import cache, lru_cache


@cache
def env():
    return 1


@lru_cache(maxsize=8)
def keys(x):
    def inner(y):
        return y
    return inner


@functools.lru_cache(maxsize=2)
def parsed(x):
    return x


def plain(x):
    return x
"""


def test_a_memoized_function_body_needs_the_whole_selection() -> None:
    """@cache / @lru_cache bodies run in the first test that calls them and serve the rest (a
    Jinja environment built once with autoescape): not per call. A function defined inside
    one is per call again."""
    assert contexts.function_body_lines(MEMOIZED) == frozenset({13, 23})


def test_an_unacknowledged_switch_makes_the_record_unusable(tree: Path, tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    executed.coverage_env(workdir, tree, contexts=True)
    (workdir / "failed").write_text("no ack from 1", "utf-8")
    assert contexts.lines_by_context(workdir, tree) is None
    contexts.write(tmp_path / "c.json", None)
    unusable = contexts.Plans.load(tmp_path / "c.json")
    item = plan.mutants(plan.load_config(), MODULE, root=tree)[0]
    assert unusable.of(item, {}) is None  # the whole selection on every date


def test_a_context_outside_a_test_needs_the_whole_selection() -> None:
    rules = {"d1": {"a": ["r.a"], "b": ["r.b"], "none": []}, "d2": {"a": ["r.a"]}}
    assert contexts._plan_of(["d1|a", "d1|b", "d2|a"], rules) == {
        "d1": ["r.a", "r.b"], "d2": ["r.a"],
    }  # fmt: skip
    assert contexts._plan_of(["d1|a", f"d1|{SHARED}"], rules) == {"d1": None}
    assert contexts._plan_of(["d1|none"], rules) == {"d1": None}  # a test of no rule
    assert contexts._plan_of(["d1|unknown", "d2|a"], rules) == {"d1": None, "d2": ["r.a"]}
    assert contexts._plan_of(["", "d1|a"], rules) == {"d1": None, "d2": None}  # start


def test_a_mutant_plan_is_the_union_of_its_lines(tree: Path) -> None:
    doc = {
        "days": ["d1", "d2"],
        "plans": [{"d1": ["r.a"]}, {"d1": ["r.b"], "d2": ["r.c"]}, {"d1": None}],
        "modules": {MODULE: {"2": 0, "3": 1, "4": 2, "5": 0}},
    }
    found = contexts.Plans(doc)
    items = plan.mutants(plan.load_config(), MODULE, root=tree)

    def of(line: int, unexecuted: frozenset[int] = frozenset()) -> contexts.Plan | None:
        item = next(w for w in items if w.mutations[0].start_pos[0] == line)
        return found.of(item, {MODULE: unexecuted})

    assert of(2) == {"d1": ["r.a"]}
    assert of(3) == {"d1": ["r.b"], "d2": ["r.c"]}
    # the statement on lines 4-5: one line needs the whole selection on d1
    assert of(4) == {"d1": None}
    assert of(6) is None  # not in the record: nothing known, the whole selection
    assert of(6, frozenset({6})) == {}  # never executed: no date runs it


def _baseline(path: Path, day: str, statuses: dict[str, str], exit_code: int = 0) -> Path:
    run = v.Run(as_of=day, exit=exit_code, has_results=True, statuses=statuses)
    path.write_text(json.dumps(v.Baseline({day: run}).to_json()), "utf-8")
    return path


def test_a_rule_run_alone_kills_only_where_it_passed_alone_and_in_the_whole_run(
    tmp_path: Path,
) -> None:
    full = v.Baseline.from_json(
        json.loads(
            _baseline(tmp_path / "full.json", "d1", {"r.a": "PASS", "r.b": "FAIL"}).read_text()
        )
    )
    full.runs["d2"] = v.Run(as_of="d2", exit=0, has_results=True, statuses={"r.a": "PASS"})
    alone = _baseline(tmp_path / "alone.json", "d1", {"r.a": "PASS", "r.b": "PASS"})
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"d1": {"args": ["--rule", "r.a$"], "baseline": str(alone)}}))
    selection = ["--area", "storage", suite_cmd.PROFILE, "migration_source_endpoint=x"]
    days, per_day, judged = suite_cmd._subset(spec, full, selection)
    assert days == ["d1"]  # d2 executed none of the mutant's lines: not run
    assert per_day == {"d1": ["--rule", "r.a$", suite_cmd.PROFILE, "migration_source_endpoint=x"]}
    assert judged.passing("d1") == {"r.a"}  # r.b passed alone, but not in the whole run
    mutant = v.Run(
        as_of="d1", exit=1, has_results=True, failures={"r.a": ["fail"], "r.b": ["fail"]}
    )
    assert v.kills(judged, mutant) == ["d1 r.a"]


def test_the_subset_command_runs_each_rule_set_alone_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _baseline(
        tmp_path / "baseline-x.json", "d1", {"r.a": "PASS", "r.b": "PASS", "r.c": "N/A"}
    )
    selection = plan.Selection(areas=("storage",), as_of=("d1",))
    ran: list[list[str]] = []

    def fake(
        sel: plan.Selection,
        path: Path,
        timeout: float,
        coverage: bool = True,
        server: object = None,
    ) -> v.Baseline:
        ran.append(sel.args())
        _baseline(path, "d1", {"r.a": "PASS"})
        return v.Baseline()

    monkeypatch.setattr(execute, "run_baseline", fake)
    whole = execute.subset_command(selection, base, {"d1": None}, 60)
    assert whole == execute.test_command(selection, base) and not ran
    assert execute.subset_command(selection, base, None, 60) == whole
    # two of the selection's three rules: the whole selection, no baseline of their own
    assert execute.subset_command(selection, base, {"d1": ["r.a", "r.b"]}, 60) == whole
    assert not ran
    command = execute.subset_command(selection, base, {"d1": ["other.area", "r.a"]}, 60)
    # a rule the baseline did not run (another area's, on the same test) is left out
    assert ran == [["--area", "storage", "--rule", "r.a$", "--as-of", "d1"]]
    spec_path = Path(command.rsplit(" ", 1)[1])
    assert command == f"{execute.test_command(selection, base)} --subset {spec_path}"
    spec = json.loads(spec_path.read_text())
    assert spec["d1"]["args"] == ["--area", "storage", "--rule", "r.a$"]
    assert Path(spec["d1"]["baseline"]).is_file()


SUITE = """\
import pytest
import reference_impl.m as m


@pytest.fixture(scope="module")
def shared():
    return m.f(None)


@pytest.mark.rule("r.one")
def test_one(shared):
    m.f(5)


@pytest.mark.rule("r.two")
def test_two():
    m.f(0)
"""


def test_the_plugin_gives_each_test_its_window_and_shared_fixtures_none(
    tree: Path, tmp_path: Path
) -> None:
    """In-process here (the test calls the module itself), as the reference does out of it."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    (tree / "test_suite.py").write_text(SUITE, "utf-8")
    env = executed.coverage_env(workdir, tree, contexts=True)
    env["PYTHONPATH"] += os.pathsep + str(plan.ROOT)
    env |= {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", DAY_ENV: "d1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "bench.mutation.context_plugin",
         "-p", "no:cacheprovider", "-W", "ignore", "test_suite.py"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    executed.unexecuted_lines(workdir, tree)
    doc = contexts.lines_by_context(workdir, tree)
    assert doc is not None
    found = contexts.Plans(doc)
    by_line = {n: found.plans[i] for n, i in found.modules[MODULE].items()}
    assert by_line[3] == {"d1": None}  # only in the module-scoped fixture: shared
    assert by_line[2] == {"d1": None}
    assert by_line[4] == by_line[6] == {"d1": ["r.one", "r.two"]}
