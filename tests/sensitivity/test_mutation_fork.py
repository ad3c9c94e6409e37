"""The mutation harness's fork server runs each command on the tree as it is then (bench/mutation).

Soundness of the fork server (forkrun.py): a forked command must see the module as the mutant
wrote it, never a copy the server imported before (it holds no project module), nor one of an
earlier command; and what a forking process registered to run at its exit (a TemporaryDirectory
of suite_cmd's) must not run again in the processes it forks.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cosmic_ray.work_item import TestOutcome as Outcome
from helpers.mutation_module import SOURCE, write_tree

from bench.mutation import forkclient

ROOT = Path(__file__).resolve().parents[2]

PROBE = """\
import sys
held = sorted(m for m in sys.modules if m.split(".")[0] in ("reference_impl", "conformance"))
import reference_impl.m as m
print(held, m.f(None))
"""

# forks a child that exits at once; the parent's TemporaryDirectory must outlive it
FINALIZER = """\
import os, sys, tempfile
from bench.mutation import forkrun
with tempfile.TemporaryDirectory() as tmp:
    child = forkrun.spawn("json.tool", ["--help"], output=os.open(os.devnull, os.O_WRONLY))
    child.wait()
    print(os.path.isdir(tmp))
"""


@pytest.fixture(scope="module")  # one server (its preload takes seconds) for the module's tests
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, forkclient.Server]]:
    root = write_tree(tmp_path_factory.mktemp("tree"))
    (root / "bench").symlink_to(ROOT / "bench")  # the server is `python -m bench.mutation...`
    (root / "probe.py").write_text(PROBE, "utf-8")
    (root / "finalizer.py").write_text(FINALIZER, "utf-8")
    running = forkclient.Server(root)  # it refuses to start holding a project module
    try:
        yield root, running
    finally:
        running.close()


def test_each_command_imports_the_module_as_it_is_when_it_runs(
    server: tuple[Path, forkclient.Server],
) -> None:
    root, running = server
    assert running.run("probe", [], 120) == (Outcome.SURVIVED, "[] 1\n")
    # the server started before this change, and the first command imported the module
    (root / "reference_impl" / "m.py").write_text(SOURCE.replace("return 1", "return 7"), "utf-8")
    assert running.run("probe", [], 120) == (Outcome.SURVIVED, "[] 7\n")
    (root / "reference_impl" / "m.py").write_text(SOURCE, "utf-8")
    assert running.cpu > 0


def test_a_fork_does_not_run_its_parents_exit_handlers(
    server: tuple[Path, forkclient.Server],
) -> None:
    _, running = server
    assert running.run("finalizer", [], 120) == (Outcome.SURVIVED, "True\n")


def test_a_command_over_its_time_is_killed_with_its_children(
    server: tuple[Path, forkclient.Server],
) -> None:
    root, running = server
    (root / "slow.py").write_text("import time\ntime.sleep(60)\n", "utf-8")
    assert running.run("slow", [], 1) == (Outcome.KILLED, "timeout")
    assert running.run("probe", [], 120)[0] == Outcome.SURVIVED  # the server still serves


def test_a_server_that_ended_is_started_again(server: tuple[Path, forkclient.Server]) -> None:
    _, running = server
    running.proc.kill()
    running.proc.wait()
    assert running.run("probe", [], 120) == (Outcome.SURVIVED, "[] 1\n")


# A stand-in server that answers a command's two lines in one write, as the real one does for a
# command that ends before the harness has read its pid line (a loaded machine).
TOGETHER = """\
import json, os, sys
def reply(*docs):
    os.write(1, b"".join(json.dumps(doc).encode() + b"\\n" for doc in docs))
reply({"ready": True})
while sys.stdin.readline():
    reply({"pid": os.getpid()}, {"exit": 0, "cpu": 0.0})
"""


class _RepliesTogether(forkclient.Server):
    COMMAND = ("-c", TOGETHER)


def test_replies_that_arrive_together_are_each_read(tmp_path: Path) -> None:
    """Both lines in the pipe at once: the exit line is read at once, not waited for until
    the command's timeout (which then waited for ever on a line already buffered)."""
    running = _RepliesTogether(tmp_path)
    try:
        started = time.monotonic()
        assert running.run("quick", [], 20) == (Outcome.SURVIVED, "")
        assert running.run("quick", [], 20) == (Outcome.SURVIVED, "")  # and the next command
        assert time.monotonic() - started < 15
    finally:
        running.close()
