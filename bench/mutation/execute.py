"""Run mutants one at a time, in place, and always put the reference back.

cosmic-ray writes each mutant into the module file, runs the test command and restores the
file. On top of that this module refuses to start on a reference with uncommitted changes
(so "restored" means "equal to git HEAD"), keeps its own copy of every module it may touch and
writes it back on any exit (Ctrl-C, SIGTERM, an exception), then checks `git diff` is empty.
"""

from __future__ import annotations

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
from cosmic_ray.work_item import WorkItem, WorkResult

from bench.mutation.plan import ROOT, Selection


class DirtyReference(RuntimeError):
    """reference_impl/ has uncommitted changes: a mutant run could not tell them apart."""


def reference_diff() -> str:
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--", "reference_impl"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return proc.stdout.strip()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


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
    """Kill every descendant (the test command runs in its own session, a signal misses it)."""
    for child in psutil.Process().children(recursive=True):
        with suppress(psutil.Error):
            child.kill()


@contextmanager
def guarded(modules: list[str]) -> Iterator[None]:
    """Snapshot `modules`, restore them whatever happens, and verify the tree is clean."""
    imported_from_root()
    if diff := reference_diff():
        raise DirtyReference(f"commit or stash reference_impl changes first:\n{diff}")
    saved = {m: (ROOT / m).read_bytes() for m in modules}
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    except BaseException:
        _kill_children()
        raise
    finally:
        for module, content in saved.items():
            path = ROOT / module
            if path.read_bytes() != content:
                path.write_bytes(content)
        signal.signal(signal.SIGTERM, previous)
        if diff := reference_diff():
            print(f"WARNING: reference_impl differs from HEAD:\n{diff}", file=sys.stderr)


def test_command(selection: Selection) -> str:
    return shlex.join([sys.executable, "-m", "bench.mutation.suite_cmd", *selection.args()])


def run_items(
    db: WorkDB,
    work: list[tuple[WorkItem, Selection]],
    timeout: float,
    progress: Callable[[WorkItem, WorkResult, float], None],
) -> None:
    """Run every pending item (one at a time) and store its result in the cosmic-ray db."""
    done = {job_id for job_id, _ in db.results}
    for item, selection in work:
        if item.job_id in done:
            continue
        started = time.monotonic()
        result = mutate_and_test(item.mutations, test_command(selection), timeout)
        db.set_result(item.job_id, result)
        progress(item, result, time.monotonic() - started)


def module_paths(work: list[tuple[WorkItem, Selection]]) -> list[str]:
    return sorted({str(Path(w.mutations[0].module_path)) for w, _ in work})
