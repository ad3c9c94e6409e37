"""A fixed-seed sample of code-level mutants of the reference, each killed by the suite.

The break-check ledger proves each rule goes red when the reference breaks it through its own
profile switch; mutants (bench/mutation, cosmic-ray) break it the way an implementer's slip
would. This runs 24 of them over the hot modules (bench/mutation/sample.yaml, seed 17): one
case per selection (the modules judged by the same rules share a case, so the baseline run of
their selection is made once: the two multipart modules), each in its own copy of the tree
(the checkout is never mutated), so xdist spreads the five over its workers; each module's
four mutants are the ones a run of that module alone draws. A sampled mutant that survives
and is not explained in
bench/mutation/survivors.yaml fails its case, and so does one the suite did not judge (a
timeout, a reference that did not start, a collection error, another non-zero exit): a kill is
a rule that passed on the baseline run and fails under the mutant. The full run is
`nice -n 10 python -m bench.mutation.run` (docs: bench/mutation/README.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "bench" / "mutation" / "sample.yaml"
PER_MODULE = 4
ENTRIES = yaml.safe_load(SAMPLE.read_text("utf-8"))["modules"]
MODULES = [entry["glob"] for entry in ENTRIES]


def _cases() -> list[tuple[str, ...]]:
    """The sample's modules grouped by their selection (rule, area and as-of keys alike), in
    sample.yaml's order: one harness run per group, one baseline per selection."""
    groups: dict[str, list[str]] = {}
    for entry in ENTRIES:
        key = json.dumps({k: v for k, v in entry.items() if k != "glob"}, sort_keys=True)
        groups.setdefault(key, []).append(entry["glob"])
    return [tuple(modules) for modules in groups.values()]


CASES = _cases()
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "venv", "reports", "node_modules", "__pycache__", "*.pyc",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".conformance-data", "*.egg-info",
)  # fmt: skip


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=sample", "-c", "user.email=sample@localhost", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def test_the_sample_is_24_mutants_over_six_modules() -> None:
    assert len(MODULES) * PER_MODULE == 24 and len(set(MODULES)) == len(MODULES), MODULES


def test_modules_that_share_a_selection_share_a_case() -> None:
    assert sorted(m for case in CASES for m in case) == sorted(MODULES)
    pair = ("reference_impl/s3/multipart_complete.py", "reference_impl/storage/multipart.py")
    assert pair in CASES, CASES  # both judged by storage.complete-multipart-upload


@pytest.mark.slow
@pytest.mark.parametrize("modules", CASES, ids=["+".join(case) for case in CASES])
def test_sampled_mutants_are_killed_or_in_the_ledger(
    tmp_path: Path, modules: tuple[str, ...]
) -> None:
    """Every sampled mutant of `modules` is killed by their rules' tests, or listed with a
    reason."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=IGNORED)
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-q", "-m", "sample")
    command = [
        sys.executable, "-m", "bench.mutation.run", *modules,
        "--selection", "bench/mutation/sample.yaml", "--sample", str(PER_MODULE), "--seed", "17",
        "--timeout", "300", "--out", str(tmp_path / "out"), "--run-unexecuted",
    ]  # fmt: skip
    proc = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=1800)
    report = proc.stdout[-6000:] + proc.stderr[-2000:]
    print(report)  # the table, for the record (pytest -s / -rA)
    assert proc.returncode == 0, report
    survivors = (tmp_path / "out" / "survivors.md").read_text("utf-8")
    assert "NOT IN LEDGER" not in survivors and "NOT JUDGED" not in survivors, survivors
    doc = json.loads((tmp_path / "out" / "results.json").read_text("utf-8"))
    classes = [m["cls"] for m in doc["mutants"]]
    for module in modules:  # PER_MODULE of each: a run of several draws each one's alone
        assert [m["module"] for m in doc["mutants"]].count(module) == PER_MODULE, report
    listed = [m for m in doc["mutants"] if m["cls"] == "survived" and m["ledger"]]
    assert len(classes) == PER_MODULE * len(modules), report
    assert classes.count("killed") + len(listed) == len(classes), report
    for mutant in doc["mutants"]:  # a kill names the rule that proved it
        assert mutant["cls"] != "killed" or mutant["kills"], mutant
