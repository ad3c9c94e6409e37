"""Run mutants one at a time, in place, and always put the reference back.

cosmic-ray writes each mutant into the module file, runs the test command and restores the
file. On top of that this module refuses to start on a reference with uncommitted changes
(so "restored" means "equal to git HEAD"), keeps its own copy of every module it may touch and
writes it back on any exit (Ctrl-C, SIGTERM, an exception), then checks `git diff` is empty.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import resource
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType

import psutil
from cosmic_ray.mutating import mutate_and_test
from cosmic_ray.work_db import WorkDB
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

from bench.mutation import contexts, executed, forkclient, forkrun, validity, verdict
from bench.mutation.plan import ROOT, Selection

EXACT = "$"  # `--rule ID$`: that rule only (conformance.plugin.collection.EXACT)
BROAD = 2  # a rule set of 1/BROAD of the selection's rules or more runs the whole selection


class DirtyReference(RuntimeError):
    """reference_impl/ has uncommitted changes: a mutant run could not tell them apart."""


def reference_diff() -> str:
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--", "reference_impl"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return proc.stdout.strip()


def imported_from_root() -> None:
    """The reference a run launches (`python -m reference_impl` from ROOT) is ROOT's copy."""
    proc = subprocess.run(
        [sys.executable, "-c", "import reference_impl; print(reference_impl.__file__)"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    origin = Path(proc.stdout.strip()).resolve()
    if not origin.is_relative_to(ROOT.resolve()):
        raise RuntimeError(f"reference_impl imports from {origin}, not from {ROOT}")


def _kill_children() -> None:
    """Kill every descendant. The test command and its children (pytest, the reference) run in
    sessions of their own, so a signal to the harness's group misses them; they are stopped
    (SIGSTOP) first, snapshot after snapshot until no new one appears, so none can start
    another meanwhile, then killed together."""
    me = psutil.Process()
    stopped: dict[int, psutil.Process] = {}
    for _ in range(20):
        fresh = [c for c in me.children(recursive=True) if c.pid not in stopped]
        if not fresh:
            break
        for child in fresh:
            with suppress(psutil.Error):
                child.suspend()
            stopped[child.pid] = child
    for child in stopped.values():
        with suppress(psutil.Error):
            child.kill()


def _stop_on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGTERM/SIGINT: kill the descendants while they are still ours, then unwind. Killing
    after the unwind was too late: `subprocess.run` kills its direct child on the way out,
    and that child's children, orphaned, were no longer the harness's descendants."""
    _kill_children()
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def stopping_children() -> Iterator[None]:
    """While inside: SIGTERM and SIGINT kill every process the harness started, then raise
    KeyboardInterrupt (each `finally` restores what it guards)."""
    previous = {s: signal.signal(s, _stop_on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def guarded(modules: list[str]) -> Iterator[None]:
    """Snapshot `modules`, restore them whatever happens, and verify the tree is clean."""
    imported_from_root()
    if diff := reference_diff():
        raise DirtyReference(f"commit or stash reference_impl changes first:\n{diff}")
    saved = {m: (ROOT / m).read_bytes() for m in modules}
    try:
        with stopping_children():
            yield
    except BaseException:
        _kill_children()
        raise
    finally:
        for module, content in saved.items():
            path = ROOT / module
            if path.read_bytes() != content:
                path.write_bytes(content)
        if diff := reference_diff():
            print(f"WARNING: reference_impl differs from HEAD:\n{diff}", file=sys.stderr)


def test_command(selection: Selection, baseline: Path) -> str:
    return shlex.join(
        [sys.executable, "-m", "bench.mutation.suite_cmd", *selection.args(), "--baseline",
         str(baseline)]
    )  # fmt: skip


def lines_path(baseline: Path) -> Path:
    """Where a baseline's record of never-executed reference lines is kept (bench.executed)."""
    return baseline.with_name(baseline.stem + ".unexecuted.json")


def plans_path(baseline: Path) -> Path:
    """Where a baseline's record of which rules' tests executed each line is kept (contexts)."""
    return baseline.with_name(baseline.stem + ".contexts.json")


def run_baseline(
    selection: Selection,
    path: Path,
    timeout: float,
    coverage: bool = True,
    contexts: bool = False,
    server: forkclient.Server | None = None,
) -> verdict.Baseline:
    """The selection's runs on the unmutated tree, with `coverage` under coverage (the
    reference lines they never execute go beside them, `lines_path`; with `contexts` also
    which rules' tests executed each line, `plans_path`); reused when `path` already holds
    them (and, with `coverage`, their lines and, with `contexts`, their plans). Without
    coverage and given the fork server, the run is forked from it (forkrun.py)."""
    missing = not path.is_file() or (coverage and not lines_path(path).is_file())
    missing = missing or _other_bound(path)
    if missing or (coverage and contexts and not plans_path(path).is_file()):
        command = [
            sys.executable, "-m", "bench.mutation.suite_cmd", *selection.args(),
            "--write-baseline", str(path),
        ]  # fmt: skip
        where = " ".join(selection.args())
        try:
            if coverage:
                plans = plans_path(path) if contexts else None
                executed.record(command, lines_path(path), timeout, plans=plans)
            elif server is not None:
                outcome, output = server.run(forkclient.SUITE, command[3:], timeout)
                if outcome != TestOutcome.SURVIVED:  # a non-zero exit, or "timeout"
                    raise RuntimeError(output[-3000:])
            else:
                proc = subprocess.run(
                    command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                    check=False,
                )  # fmt: skip
                if proc.returncode != 0:
                    raise RuntimeError(
                        f"exit {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}"
                    )
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            path.unlink(missing_ok=True)
            raise BaselineFailed(f"the baseline of {where} did not run: {exc}") from exc
        if not path.is_file():
            raise BaselineFailed(f"the baseline of {where} wrote no results")
    return verdict.Baseline.from_json(json.loads(path.read_text("utf-8")))


def _other_bound(path: Path) -> bool:
    """A stored baseline made under another case bound than the harness's now (an older
    harness's 60 s, unrecorded): made again, never reused."""
    from bench.mutation.suite_cmd import CASE_TIMEOUT

    if not path.is_file():
        return False
    try:
        stored = verdict.Baseline.from_json(json.loads(path.read_text("utf-8")))
    except (ValueError, TypeError, AttributeError):  # unreadable: made again
        return True
    return stored.bound_differs(float(CASE_TIMEOUT))


class BaselineFailed(RuntimeError):
    """The unmutated tree's run of a selection wrote no results: nothing can be judged."""


def settle(raw: WorkResult, module_sha256: str | None = None) -> WorkResult:
    """cosmic-ray's result (KILLED on any non-zero exit) made to say what the verdict says:
    KILLED only for a proven kill, SURVIVED for a survivor, INCOMPETENT for the unjudged; the
    verdict line goes last in the output, after the unmutated module's sha256 (what a later
    --carry-killed checks the module against, and a published figure names). A result the
    harness could not make (no NORMAL outcome) keeps cosmic-ray's words and gets the sha256."""
    module = f"{verdict.MODULE_MARKER}{module_sha256}\n" if module_sha256 else ""
    if raw.worker_outcome != WorkerOutcome.NORMAL:
        if not module:
            return raw
        output = f"{(raw.output or '').rstrip()}\n{module}".lstrip("\n")
        return WorkResult(
            worker_outcome=raw.worker_outcome,
            output=output,
            test_outcome=raw.test_outcome,
            diff=raw.diff,
        )
    found = verdict.from_output(raw.output) or verdict.Verdict(
        verdict.OTHER, notes=["the test command printed no verdict"]
    )
    outcome = {verdict.KILLED: TestOutcome.KILLED, verdict.SURVIVED: TestOutcome.SURVIVED,
               verdict.NOT_EXECUTED: TestOutcome.SURVIVED}  # fmt: skip
    return WorkResult(
        worker_outcome=raw.worker_outcome,
        output=f"{(raw.output or '').rstrip()}\n{module}{found.line()}",
        test_outcome=outcome.get(found.cls, TestOutcome.INCOMPETENT),
        diff=raw.diff,
    )


def finished(result: WorkResult, retry_unjudged: bool) -> bool:
    """Does a stored result stand on resume? Not one without a verdict (an older harness's),
    nor, with `retry_unjudged`, one the suite did not judge (a timeout on a busy machine)."""
    if result.worker_outcome in (WorkerOutcome.NO_TEST, WorkerOutcome.SKIPPED):
        return True  # no mutant to make, or one that is not Python (validity.py)
    found = verdict.from_output(result.output)
    if found is None:
        return False
    return found.settled or not retry_unjudged


def run_items(
    db: WorkDB,
    work: list[tuple[WorkItem, Selection]],
    baselines: dict[Selection, Path],
    timeout: float,
    progress: Callable[[WorkItem, WorkResult, float, float], None],
    retry_unjudged: bool = False,
    run_unexecuted: bool = False,
    select_tests: bool = False,
) -> None:
    """Run every pending item (one at a time) and store its settled result in the db. A mutant
    whose lines the selection's baseline never executed is not run (unless `run_unexecuted`):
    it is made, to record its diff, and judged `not executed`. With `select_tests`, a mutant
    runs, per date, only the rules whose tests executed its lines (contexts.py), judged
    against those rules' own run on the unmutated tree (made first, kept under subsets/)."""
    done = {job_id for job_id, result in db.results if finished(result, retry_unjudged)}
    unexecuted = {} if run_unexecuted else {
        sel: executed.load(lines_path(path)) for sel, path in baselines.items()
    }  # fmt: skip
    plans = {} if run_unexecuted or not select_tests else {
        sel: contexts.Plans.load(plans_path(path)) for sel, path in baselines.items()
    }  # fmt: skip
    with contextlib.ExitStack() as stack:
        server = None
        if forkrun.enabled() and any(item.job_id not in done for item, _ in work):
            server = forkclient.Server(ROOT)
            stack.callback(server.close)
        _run_pending(
            db, work, baselines, timeout, progress, done, unexecuted, plans, server,
            run_unexecuted,
        )  # fmt: skip


def _run_pending(
    db: WorkDB,
    work: list[tuple[WorkItem, Selection]],
    baselines: dict[Selection, Path],
    timeout: float,
    progress: Callable[[WorkItem, WorkResult, float, float], None],
    done: set[str],
    unexecuted: dict[Selection, dict[str, frozenset[int]]],
    plans: dict[Selection, contexts.Plans],
    server: forkclient.Server | None,
    run_unexecuted: bool,
) -> None:
    for item, selection in work:
        if item.job_id in done:
            continue
        started = time.monotonic()
        # read before mutating: `guarded` keeps the module equal to HEAD between mutants
        sha = verdict.module_sha256((ROOT / item.mutations[0].module_path).read_bytes())
        invalid = validity.syntax_error(item, ROOT)
        if invalid is not None:
            skipped = validity.not_python_result(invalid, sha)
            db.set_result(item.job_id, skipped)
            progress(item, skipped, time.monotonic() - started, 0.0)
            continue
        if not run_unexecuted and executed.never_executed(item, unexecuted[selection]):
            command = not_executed_command()
        elif selection in plans:
            plan = plans[selection].of(item, unexecuted[selection])
            command = subset_command(selection, baselines[selection], plan, timeout, server)
        else:
            command = test_command(selection, baselines[selection])
        cpu = children_cpu() + (server.cpu if server else 0.0)
        if server is None:
            raw = mutate_and_test(item.mutations, command, timeout)
        else:  # the suite command forked from the fork server (forkrun.py)
            raw = forkclient.mutate_and_test(server, item.mutations, command, timeout)
        result = settle(raw, sha)
        db.set_result(item.job_id, result)
        used = children_cpu() + (server.cpu if server else 0.0) - cpu
        progress(item, result, time.monotonic() - started, used)


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's ended descendants so far, each counted
    when its parent waited for it: the test command's pytest and reference included. On a
    shared machine a mutant's CPU, not its wall time, says what it costs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def subset_command(
    selection: Selection,
    baseline: Path,
    plan: contexts.Plan | None,
    timeout: float,
    server: forkclient.Server | None = None,
) -> str:
    """The test command of a mutant with a plan: per date, the whole selection, or only the
    rules whose tests executed its lines, each rule set first run on the unmutated tree (its
    own baseline, kept under subsets/ beside `baseline` and shared by the mutants that need
    it; forked by `server` when given). The whole selection's command when every date of the
    baseline needs it whole, or when a rule set's own baseline did not run."""
    runs = verdict.Baseline.from_json(json.loads(baseline.read_text("utf-8"))).runs
    if plan is None or all(day in plan and plan[day] is None for day in runs):
        return test_command(selection, baseline)
    folder = baseline.parent / "subsets"
    folder.mkdir(exist_ok=True)
    spec: dict[str, object] = {}
    for day, marked in plan.items():
        # a test's marks may name rules outside the selection: only those its baseline ran
        ran = runs[day].statuses if day in runs else {}
        rules = None if marked is None else [r for r in marked if r in ran]
        # half the selection or more: its own baseline would cost a whole run, for little
        if not rules or len(rules) * BROAD >= len(ran):
            spec[day] = None
            continue
        alone = Selection(
            areas=selection.areas, rules=tuple(f"{r}{EXACT}" for r in rules), as_of=(day,),
            moto=selection.moto,
        )  # fmt: skip
        key = hashlib.sha1(f"{baseline.name} {alone.args()}".encode()).hexdigest()[:16]
        path = folder / f"base-{key}.json"
        try:
            run_baseline(alone, path, timeout, coverage=False, server=server)
        except BaselineFailed:
            return test_command(selection, baseline)
        args = [a for a in alone.args() if a != "--moto"]
        spec[day] = {"args": args[: args.index("--as-of")], "baseline": str(path)}
    if all(day in spec and spec[day] is None for day in runs):
        return test_command(selection, baseline)
    text = json.dumps(spec, sort_keys=True)
    target = folder / f"plan-{hashlib.sha1(text.encode()).hexdigest()[:16]}.json"
    target.write_text(text, "utf-8")
    return f"{test_command(selection, baseline)} --subset {shlex.quote(str(target))}"


def not_executed_command() -> str:
    """The test command of a mutant no baseline test reaches: it only prints that verdict."""
    note = "no suite test of the selection executes its lines (the baseline's coverage)"
    line = verdict.Verdict(verdict.NOT_EXECUTED, notes=[note]).line()
    return shlex.join([sys.executable, "-c", f"print({line!r})"])


def module_paths(work: list[tuple[WorkItem, Selection]]) -> list[str]:
    return sorted({str(Path(w.mutations[0].module_path)) for w, _ in work})
