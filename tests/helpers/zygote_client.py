"""Run `python -m pytest ...` through this process's fork server (helpers/suite_zygote.py).

One server per test process (an xdist worker runs one test at a time), started on first use
and stopped at exit. A run falls back to a plain subprocess when the server cannot serve it
the same way: `EC_TEST_NO_ZYGOTE=1`, no `os.fork`, or an environment whose `PYTHON*`,
`CONFORMANCE_*` or `HYPOTHESIS*` variables differ from the server's (those are read before
any fork).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from helpers.suite_zygote import kill_run

SERVER = Path(__file__).with_name("suite_zygote.py")
OPT_OUT = "EC_TEST_NO_ZYGOTE"


# variables read once, before a fork: by the interpreter at start, or by a preloaded module at
# import (hypothesis's settings); CONFORMANCE_* are read when used now, kept here to be safe
FIXED_AT_START = ("PYTHON", "CONFORMANCE_", "HYPOTHESIS")


def _interpreter_settings(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(FIXED_AT_START)}


class Zygote:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.settings = _interpreter_settings(env)
        # its own working directory: hypothesis settles its `.hypothesis` folder there at import
        self.home = tempfile.mkdtemp(prefix="ec-zygote-")
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=dict(env), cwd=self.home,
        )  # fmt: skip
        self._buffer = b""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.home, ignore_errors=True)

    def _reply(self, deadline: float | None) -> dict[str, Any]:
        """The server's next answer line; TimeoutError past `deadline`, EOFError if it died."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("the fork server ended")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        reply: dict[str, Any] = json.loads(line)
        return reply

    def run(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], output: Path, timeout: float
    ) -> int:
        """Exit status of the run; its stdout and stderr go to `output`."""
        assert self.proc.stdin is not None
        request = {"argv": list(argv), "cwd": str(cwd), "env": dict(env), "output": str(output)}
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        pid: int | None = None
        try:
            started = self._reply(deadline=time.monotonic() + 60)
            if "pid" not in started:
                raise RuntimeError(f"the fork server refused: {started}")
            pid = int(started["pid"])
            try:
                return int(self._reply(deadline=time.monotonic() + timeout)["exit"])
            except TimeoutError:
                kill_run(pid)
                self._reply(deadline=None)
                raise subprocess.TimeoutExpired(["pytest", *argv], timeout) from None
        except subprocess.TimeoutExpired:
            raise
        except BaseException:
            # left mid-protocol (an interrupt, a timeout of the caller, a refusal): the
            # server's next lines would answer this run, not the next one; end both
            self.abandon(pid)
            raise

    def abandon(self, pid: int | None) -> None:
        """Kill the run in flight (if any) and the server: a later run starts a new one."""
        if pid is not None:
            kill_run(pid)
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.home, ignore_errors=True)


_server: Zygote | None = None


def _server_for(env: Mapping[str, str]) -> Zygote | None:
    global _server
    if os.environ.get(OPT_OUT) or not hasattr(os, "fork"):
        return None
    if _server is not None and not _server.alive():
        _server = None
    if _server is None:
        _server = Zygote(env)
        atexit.register(_server.stop)
    if _server.settings != _interpreter_settings(env):
        return None
    return _server


def run_pytest(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float
) -> tuple[int, str]:
    """(exit status, stdout + stderr) of `python -m pytest <argv>` run from `cwd` with `env`."""
    server = _server_for(env)
    if server is not None:
        output = cwd / ".suite-output.txt"
        try:
            code = server.run(argv, cwd, env, output, timeout)
        except (EOFError, BrokenPipeError):
            pass  # the server died: this run goes the plain way
        else:
            text = output.read_text(encoding="utf-8", errors="replace")
            output.unlink()
            return code, text
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *argv], cwd=cwd, env=dict(env), capture_output=True,
        text=True, timeout=timeout, check=False,
    )  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr
