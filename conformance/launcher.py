"""Launch and stop the bundled reference as a subprocess, once per run.

The first process that needs it (a worker, or the only process) starts it under a file lock in
the run directory; everyone else reads the ready file. Whoever ends the run stops it by the pid
in the ready file, so the owner need not be the one who launched it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from conformance import settings, spawn_hook
from conformance.safety import statedir

STOP_TIMEOUT = 10.0


def ready_timeout() -> float:
    """Seconds the reference has to become ready; read at launch, so a malformed
    CONFORMANCE_READY_TIMEOUT is a clear error there, not an import crash."""
    return settings.seconds(settings.READY_TIMEOUT, 30.0)


class LaunchError(RuntimeError):
    """The reference did not come up; the message carries the tail of its stderr."""


class Child(Protocol):
    """What the launcher needs of the reference's process: a `subprocess.Popen`'s methods."""

    pid: int

    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


def _popen(cmd: list[str], log: Path) -> Child:
    with log.open("wb") as stderr:
        return subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
            start_new_session=True,  # a Ctrl-C of the run must not kill it before cleanup
        )  # fmt: skip


# How `launch` starts `command(...)` with stderr to the log (truncated first), in a session
# of its own. The project's break-check fork server swaps in one that forks a process that has
# imported the reference already (tests/helpers/reference_fork.py); nothing else changes it.
# `conformance.spawn_hook.reference`, when set, is used instead (the mutation harness's fork
# server, which must not import this plugin).
spawn: Callable[[list[str], Path], Child] = _popen


@dataclass
class ReferenceProcess:
    ready: dict[str, Any]
    process: Child | None = None  # set in the process that launched it

    @property
    def pid(self) -> int:
        return int(self.ready["pid"])

    @property
    def surfaces(self) -> dict[str, dict[str, Any]]:
        surfaces: dict[str, dict[str, Any]] = self.ready["surfaces"]
        return surfaces


def ready_path(run_dir: Path) -> Path:
    return run_dir / "reference.ready.json"


def stderr_path(run_dir: Path) -> Path:
    """The launched reference's stderr (its log: warnings and tracebacks)."""
    return run_dir / "reference.stderr"


def _stderr_tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no stderr)"
    return "\n".join(text.splitlines()[-lines:]) or "(stderr empty)"


def alive(pid: int) -> bool:
    """True while `pid` runs on this machine (a zombie, reaped by nobody in a container, counts
    as dead): the one liveness check, the safety layer's."""
    return statedir.process_alive(pid, statedir.host_name())


def command(data_dir: Path, ready: Path, as_of: dt.date, profile: dict[str, str]) -> list[str]:
    cmd = [sys.executable, "-m", "reference_impl", "--data-dir", str(data_dir), "--port", "0"]
    cmd += ["--ready-file", str(ready), "--behaviour-date", as_of.isoformat(), "--quiet"]
    for key, value in profile.items():
        cmd += ["--profile", f"{key}={value}"]
    return cmd


def launch(run_dir: Path, as_of: dt.date, profile: dict[str, str]) -> ReferenceProcess:
    """Start the reference and wait for its ready file (`ready_timeout()` seconds)."""
    timeout = ready_timeout()
    ready, log = ready_path(run_dir), stderr_path(run_dir)
    ready.unlink(missing_ok=True)
    process = (spawn_hook.reference or spawn)(command(run_dir / "data", ready, as_of, profile), log)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if ready.is_file():
                return ReferenceProcess(json.loads(ready.read_text(encoding="utf-8")), process)
            if (code := process.poll()) is not None:
                raise LaunchError(
                    f"reference implementation exited with code {code} before it was "
                    f"ready; stderr tail:\n{_stderr_tail(log)}"
                )
            time.sleep(0.05)
    except BaseException:  # Ctrl-C while it starts: it runs in a session of its own, so stop it
        if process.poll() is None:
            process.kill()
            process.wait()
        raise
    process.kill()
    process.wait()
    raise LaunchError(
        f"reference implementation not ready within {timeout:g} s; stderr tail:\n"
        f"{_stderr_tail(log)}"
    )


def ensure_running(run_dir: Path, as_of: dt.date, profile: dict[str, str]) -> ReferenceProcess:
    """The run's reference: reused when already up, else launched under the run's file lock."""
    from filelock import FileLock

    run_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(str(run_dir / "reference.lock"), timeout=ready_timeout() + 30):
        ready = ready_path(run_dir)
        if ready.is_file():
            doc = json.loads(ready.read_text(encoding="utf-8"))
            if alive(int(doc["pid"])):
                return ReferenceProcess(doc)
        return launch(run_dir, as_of, profile)


def died(run_dir: Path, own: ReferenceProcess | None = None) -> str | None:
    """Why the run's reference is not running when the run ends, or None while it runs: a
    reference that died mid-run broke every later case, and the verdict must say so."""
    log_tail = "stderr tail:\n" + _stderr_tail(stderr_path(run_dir))
    if own is not None and own.process is not None:
        code = own.process.poll()
        if code is None:
            return None
        return f"reference implementation exited with code {code} during the run; {log_tail}"
    try:
        pid = int(json.loads(ready_path(run_dir).read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError):
        return None  # never launched: nothing died
    if alive(pid):
        return None
    return f"reference implementation (pid {pid}) was gone before the run ended; {log_tail}"


def stop(run_dir: Path, own: ReferenceProcess | None = None) -> str | None:
    """Stop the run's reference (SIGTERM, then SIGKILL); a message when it had to be killed."""
    ready = ready_path(run_dir)
    if own is not None and own.process is not None:
        return _stop_child(own.process)
    try:
        pid = int(json.loads(ready.read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError):
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        return f"reference implementation (pid {pid}) ignored SIGTERM and was killed"
    return None


def _stop_child(process: Child) -> str | None:
    if process.poll() is not None:
        return None
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return f"reference implementation (pid {process.pid}) ignored SIGTERM and was killed"
    return None
