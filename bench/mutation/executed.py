"""Which reference lines a selection's baseline run executed, in every process it started.

A mutant on a line no suite test executes cannot change what the suite sees, so it cannot be
killed; the harness records it as `not executed` (a survivor, its own column) without paying a
`conformance run` for it. The baseline runs once more under coverage: a `sitecustomize.py` on
PYTHONPATH starts coverage in each Python process of the run (the `conformance` command, pytest
and the reference it launches as a subprocess, moto), measuring reference_impl/ only; the
reference saves its data when the run stops it with SIGTERM (a process killed with SIGKILL
would save nothing: its lines would look unexecuted; the reference stops on SIGTERM). The
`sitecustomize.py` shadows any other one on the path (the project's Python has none). What is
kept, beside the baseline file, is per module the physical lines whose statement never ran on
any of the baseline's dates.

Conservative on purpose: a line that is not a statement to coverage (a decorator's, a comment's)
or that belongs to a statement that ran on any date counts as executed, and a mutant runs as
before when any of its lines does. The record is one run's: a line the baseline reached only by
chance (timing, a random draw) may be missed or hit; docs/testing.md says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from cosmic_ray.work_item import WorkItem

from bench.mutation import contexts as contexts_mod
from bench.mutation.context_plugin import DIR_ENV
from bench.mutation.plan import ROOT


def coverage_env(workdir: Path, root: Path = ROOT, contexts: bool = True) -> dict[str, str]:
    """The environment that makes every Python process of a run record reference lines, and
    with `contexts` under each suite test's context (bench/mutation/contexts.py)."""
    rc = workdir / "coveragerc"
    rc.write_text(
        "[run]\n"
        f"source = {root / 'reference_impl'}\n"
        "parallel = true\n"
        f"data_file = {workdir / 'data' / '.coverage'}\n",
        "utf-8",
    )
    (workdir / "data").mkdir(exist_ok=True)
    startup = workdir / "startup"
    startup.mkdir(exist_ok=True)
    (startup / "sitecustomize.py").write_text(contexts_mod.SITECUSTOMIZE, "utf-8")
    path = os.pathsep.join(p for p in (str(startup), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "COVERAGE_PROCESS_START": str(rc), "PYTHONPATH": path}
    env.pop(DIR_ENV, None)
    if contexts:
        contexts_mod.prepare(workdir)
        env[DIR_ENV] = str(workdir)
    return env


def unexecuted_lines(workdir: Path, root: Path = ROOT) -> dict[str, list[int]]:
    """Per reference module (repo-relative), the physical lines of statements never run."""
    import coverage
    from coverage.parser import PythonParser

    cov = coverage.Coverage(
        data_file=str(workdir / "data" / ".coverage"), config_file=str(workdir / "coveragerc")
    )
    cov.combine([str(workdir / "data")], keep=True)
    cov.load()
    if not cov.get_data().measured_files():
        raise RuntimeError("the coverage run measured no reference file")
    found: dict[str, list[int]] = {}
    for path in sorted((root / "reference_impl").rglob("*.py")):
        _, statements, _, missing, _ = cov.analysis2(str(path))
        if not missing:
            continue
        parser = PythonParser(filename=str(path))
        parser.parse_source()
        count = len(path.read_text("utf-8").splitlines())
        never = set(missing) & set(statements)
        lines = [n for n in range(1, count + 1) if parser.first_line(n) in never]
        found[path.relative_to(root).as_posix()] = lines
    return found


def record(
    command: list[str],
    target: Path,
    timeout: float,
    root: Path = ROOT,
    plans: Path | None = None,
) -> str:
    """Run the baseline `command` under coverage and write its unexecuted lines to `target`
    (and, given `plans`, which rules' tests executed each line there); the command's output
    (for an error message)."""
    with tempfile.TemporaryDirectory(prefix="ec-mutcov-") as tmp:
        workdir = Path(tmp)
        env = coverage_env(workdir, root, contexts=plans is not None)
        proc = subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout,
            check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(
                f"the coverage baseline exited {proc.returncode}:\n{proc.stdout[-2000:]}"
                f"{proc.stderr[-2000:]}"
            )
        lines = unexecuted_lines(workdir, root)
        if plans is not None:
            contexts_mod.write(plans, contexts_mod.lines_by_context(workdir, root))
    target.write_text(json.dumps({"unexecuted": lines}, indent=0), "utf-8")
    return proc.stdout


def load(path: Path) -> dict[str, frozenset[int]]:
    doc = json.loads(path.read_text("utf-8"))
    return {module: frozenset(lines) for module, lines in doc["unexecuted"].items()}


def never_executed(item: WorkItem, unexecuted: Mapping[str, frozenset[int]]) -> bool:
    """True when every line the mutant touches belongs to a statement the baseline never ran."""
    spec = item.mutations[0]
    lines = unexecuted.get(Path(spec.module_path).as_posix(), frozenset())
    first, last = spec.start_pos[0], max(spec.end_pos[0], spec.start_pos[0])
    return all(n in lines for n in range(first, last + 1))
