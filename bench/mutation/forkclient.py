"""The harness's side of the fork server (bench/mutation/forkrun.py): start it, run a mutant.

`mutate_and_test` is cosmic-ray's, with the test command forked by the server when it is the
suite command (`python -m bench.mutation.suite_cmd ...`); any other command (the `not executed`
print) runs as cosmic-ray runs it. The outcome and output are what cosmic-ray's `run_tests`
gives: stdout only, KILLED on a non-zero exit or a timeout ("timeout", the command's processes
killed), SURVIVED on 0.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shlex
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cosmic_ray.plugins
import psutil
from cosmic_ray.mutating import _make_diff, use_mutation
from cosmic_ray.testing import run_tests
from cosmic_ray.work_item import MutationSpec, TestOutcome, WorkerOutcome, WorkResult

SUITE = "bench.mutation.suite_cmd"
START_TIMEOUT = 300.0


class Server:
    """One fork server for a harness run; `cpu` sums what its commands used."""

    COMMAND: tuple[str, ...] = ("-m", "bench.mutation.forkrun")  # after sys.executable

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cpu = 0.0
        self._start()

    def _start(self) -> None:
        self._pending = b""  # read from the server, not yet a whole line
        self.proc = subprocess.Popen(
            [sys.executable, *self.COMMAND], cwd=self.root,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        hello = self._read(START_TIMEOUT)
        if hello is None or not hello.get("ready"):
            self.close()
            raise RuntimeError(f"the fork server did not start: {hello}")

    def _read(self, timeout: float | None) -> dict[str, Any] | None:
        """The server's next reply line, or None when none came within `timeout` seconds.

        Its replies are read from the pipe itself into `_pending`, never through a buffered
        reader: a command that ends at once has its `{"pid"}` and `{"exit"}` lines in the pipe
        together, and a `readline()` that took both into its buffer left `select` on the pipe
        waiting for a line already read: the run was called a timeout after its whole
        `timeout`, then waited for ever for that exit line (a project test hung until
        pytest-timeout's 30 minutes)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the fork server ended")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        doc: dict[str, Any] = json.loads(line)
        return doc

    def run(self, module: str, argv: list[str], timeout: float) -> tuple[TestOutcome, str]:
        """`python -m module argv` forked, with cosmic-ray's environment; as `run_tests`. A
        server that ended is started again; one that ends under a command makes it unjudged
        (INCOMPETENT, no verdict line: `other exits`, run again by --retry-unjudged)."""
        if self.proc.poll() is not None:
            self._start()
        pid: list[int] = []
        try:
            return self._run(module, argv, timeout, pid)
        except (OSError, RuntimeError) as exc:
            if pid:  # the command, orphaned by the server's end, is no longer our descendant
                kill_tree(pid[0])
            kill_tree(self.proc.pid)
            self.proc.wait()
            return TestOutcome.INCOMPETENT, f"the fork server failed: {exc}"

    def _run(
        self, module: str, argv: list[str], timeout: float, pid: list[int]
    ) -> tuple[TestOutcome, str]:
        assert self.proc.stdin is not None
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # as cosmic-ray's run_tests
        with tempfile.TemporaryDirectory(prefix="ec-mutfork-") as tmp:
            out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
            request = {"module": module, "argv": argv, "cwd": str(self.root), "env": env,
                       "stdout": str(out), "stderr": str(err)}  # fmt: skip
            self.proc.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            self.proc.stdin.flush()
            started = self._read(START_TIMEOUT)
            if started is None:
                raise RuntimeError("the fork server did not fork")
            pid.append(int(started["pid"]))
            done = self._read(timeout)
            if done is None:
                kill_tree(int(started["pid"]))
                done = self._read(None)
                assert done is not None
                self.cpu += float(done["cpu"])
                return TestOutcome.KILLED, "timeout"
            self.cpu += float(done["cpu"])
            output = out.read_text("utf-8", "replace") if out.is_file() else ""
        if int(done["exit"]) != 0:
            return TestOutcome.KILLED, output
        return TestOutcome.SURVIVED, output

    def close(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill_tree(self.proc.pid)
            self.proc.wait()


def kill_tree(pid: int) -> None:
    """Stop `pid` and its descendants (in sessions of their own too), then kill them."""
    try:
        top = psutil.Process(pid)
    except psutil.Error:
        return
    stopped = {pid: top}
    with contextlib.suppress(psutil.Error):
        top.suspend()
    for _ in range(20):
        try:
            fresh = [c for c in top.children(recursive=True) if c.pid not in stopped]
        except psutil.Error:
            break
        if not fresh:
            break
        for child in fresh:
            with contextlib.suppress(psutil.Error):
                child.suspend()
            stopped[child.pid] = child
    for proc in stopped.values():
        with contextlib.suppress(psutil.Error):
            proc.kill()


def mutate_and_test(
    server: Server, mutations: Iterable[MutationSpec], command: str, timeout: float
) -> WorkResult:
    """cosmic_ray.mutating.mutate_and_test, the suite command forked by `server`."""
    try:
        with contextlib.ExitStack() as stack:
            changes: dict[Path, tuple[str, str]] = {}
            for mutation in mutations:
                operator_class = cosmic_ray.plugins.get_operator(mutation.operator_name)
                operator = operator_class(**getattr(mutation, "operator_args", {}))
                previous, mutated = stack.enter_context(
                    use_mutation(mutation.module_path, operator, mutation.occurrence)
                )
                if mutated is None:
                    return WorkResult(worker_outcome=WorkerOutcome.NO_TEST)
                original, _ = changes.get(mutation.module_path, (previous, mutated))
                changes[mutation.module_path] = original, mutated
            argv = shlex.split(command)
            if argv[:3] == [sys.executable, "-m", SUITE]:
                outcome, output = server.run(SUITE, argv[3:], timeout)
            else:
                outcome, output = run_tests(command, timeout)
            diffs = [_make_diff(a, b, path) for path, (a, b) in changes.items()]
            return WorkResult(
                output=output, diff="\n".join(line for d in diffs for line in d),
                test_outcome=outcome, worker_outcome=WorkerOutcome.NORMAL,
            )  # fmt: skip
    except Exception:
        return WorkResult(
            output=traceback.format_exc(), test_outcome=TestOutcome.INCOMPETENT,
            worker_outcome=WorkerOutcome.EXCEPTION,
        )  # fmt: skip
