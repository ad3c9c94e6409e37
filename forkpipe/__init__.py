"""A process forked instead of exec'd, and a template process that waits for its one launch.

Two fork servers use these: the mutation harness's (bench/mutation/forkrun.py) and the one
that runs the project's break-check suite runs (tests/helpers/suite_zygote.py with
tests/helpers/reference_fork.py). Both fork a *template* before `pytest.main`, while the run is
single-threaded, and hand it the run's first reference launch down a pipe. They differ in what
the template becomes and when a launch must start a fresh interpreter instead, so those parts
stay with each server.

Standard library only, and no import of the project: the mutation server must hold no module
of `reference_impl` or `conformance` when a mutant is written.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any


class Forked:
    """A forked child seen as a `subprocess.Popen` (poll, wait, signals, returncode)."""

    def __init__(self, pid: int, args: list[str]) -> None:
        self.pid, self.args = pid, args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(ChildProcessError):
                done, status = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None and self.returncode is None:
            with contextlib.suppress(ChildProcessError):
                _, status = os.waitpid(self.pid, 0)
                self.returncode = os.waitstatus_to_exitcode(status)
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            time.sleep(0.01)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Template:
    """The run's side of a template: a forked child waiting on a pipe for one launch request.

    Subclasses decide in `spawn` whether a launch goes to the template (`hand_over`) or to a
    fresh interpreter; `close` at the run's end ends a template that was never used."""

    forked: type[Forked] = Forked

    def __init__(self, pid: int, pipe: int) -> None:
        self.pid, self.pipe, self.used = pid, pipe, False

    def hand_over(self, cmd: list[str], log: Path) -> Forked:
        """Send the launch (`cmd[3:]` after `python -m module`) to the template; it is then
        that process."""
        self.used = True
        log.write_bytes(b"")  # what a launcher's `log.open("wb")` does
        request = {"argv": cmd[3:], "log": str(log), "cwd": os.getcwd(), "env": dict(os.environ)}
        with os.fdopen(self.pipe, "wb") as pipe:  # closed: the template reads to its end
            pipe.write(json.dumps(request).encode("utf-8"))
        return self.forked(self.pid, cmd)

    def close(self) -> None:
        """An unused template sees its pipe close and exits; wait for it."""
        if not self.used:
            self.used = True
            os.close(self.pipe)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)


def fork_template(become: Callable[[int], int]) -> tuple[int, int]:
    """Fork a template that runs `become(read_end)` and exits with its code; (pid, write end)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(write)
            code = become(read)
        except BaseException:
            with contextlib.suppress(Exception):
                traceback.print_exc()
        finally:
            os._exit(code)
    os.close(read)
    return pid, write


def receive_launch(pipe: int) -> dict[str, Any] | None:
    """In the template: wait for the launch request; None when the run ended without one.

    Given one, the template is in a session of its own with stdin and stdout on /dev/null and
    stderr appended to the launch's log, as the launcher's own `Popen` would start it."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the run's output is not the reference's
        os.dup2(null, fd)
    if null > 2:  # a run without a stdin gave /dev/null fd 0 itself: it stays
        os.close(null)
    chunks = []
    while chunk := os.read(pipe, 65536):
        chunks.append(chunk)
    os.close(pipe)
    if not chunks:
        return None
    request: dict[str, Any] = json.loads(b"".join(chunks))
    os.setsid()
    log = os.open(request["log"], os.O_WRONLY | os.O_APPEND)
    os.dup2(log, 2)
    os.close(log)
    return request


def exit_code(exc: SystemExit) -> int:
    """The status a `SystemExit` gives the process, as the interpreter maps it (a message is
    printed and is status 1)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def run_to_exit(main: Callable[[], Any]) -> int:
    """Run a fork's `main` and end as interpreter shutdown would: the exit status, the exit
    handlers run, the standard streams flushed. The caller then `os._exit`s with it."""
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exit_code(exc)
    except BaseException:
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    return code
