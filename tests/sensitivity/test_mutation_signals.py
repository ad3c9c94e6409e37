"""A SIGTERM or SIGINT of the mutation harness leaves none of its processes behind (bench/mutation).

The harness runs a test command (the coverage baseline, a mutant's `conformance run`) whose own
children sit in sessions of their own (pytest, the reference: `start_new_session`), so a signal
to the harness's process group misses them. Before the fix, the harness turned the signal into
KeyboardInterrupt; `subprocess.run` then killed its direct child and the grandchildren, orphaned,
were out of the harness's reach when it killed its descendants: the reference servers and
pytest processes of an interrupted run kept running. Here a command starts a grandchild in a new
session and the harness, inside `execute.guarded`, is signalled while it waits.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]

# The command: a child that starts a grandchild in its own session, writes its pid, then waits.
CHAIN = """\
import subprocess, sys, time
grand = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                         start_new_session=True)
open(sys.argv[1] + ".tmp", "w").write(str(grand.pid))
__import__("os").replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(120)
"""

# The harness side: `guarded` (the reference checks stubbed out: no tree is mutated here).
HARNESS = """\
import subprocess, sys
from bench.mutation import execute
execute.reference_diff = lambda: ""
execute.imported_from_root = lambda: None
with execute.guarded([]):
    subprocess.run([sys.executable, "-c", sys.argv[1], sys.argv[2]])
"""


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_kills_the_commands_grandchildren_in_other_sessions(
    tmp_path: Path, signum: int
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, CHAIN, str(pid_file)], cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    grandchild = None
    try:
        deadline = time.monotonic() + 60
        while not pid_file.is_file():
            assert time.monotonic() < deadline, "the command did not start its grandchild"
            assert harness.poll() is None, "the harness ended before the signal"
            time.sleep(0.05)
        grandchild = int(pid_file.read_text())
        harness.send_signal(signum)
        harness.wait(timeout=30)
        deadline = time.monotonic() + 10
        while not _gone(grandchild) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(grandchild), "the grandchild outlived the harness's signal"
    finally:
        harness.kill()
        harness.wait()
        if grandchild is not None and not _gone(grandchild):
            psutil.Process(grandchild).kill()
