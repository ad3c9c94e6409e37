"""The fork server that break-check runs go through: same exit, output and environment as
`python -m pytest`, a timeout that takes the whole run down, a plain run when it cannot serve."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest
from helpers import zygote_client
from helpers.suite_zygote import kill_run
from helpers.zygote_client import run_pytest

pytestmark = pytest.mark.slow  # each test forks runs of pytest, some wait out a timeout

TESTS = """
import os, pathlib, sys, time

def test_passes():
    pathlib.Path("seen.txt").write_text(os.environ.get("ZYGOTE_PROBE", "") + "|" + sys.path[0])

def test_fails():
    assert 1 == 2

def test_sleeps():
    if os.environ.get("ZYGOTE_SLEEP"):
        pathlib.Path("pid.txt").write_text(str(os.getpid()))
        time.sleep(600)
"""


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **extra}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "test_probe.py").write_text(TESTS, encoding="utf-8")
    return tmp_path


ARGS = ["test_probe.py", "-q", "-p", "no:cacheprovider"]


def test_a_run_is_what_python_m_pytest_gives(project: Path) -> None:
    code, output = run_pytest(ARGS, project, _env(ZYGOTE_PROBE="forked"), timeout=120)
    assert zygote_client._server is not None and zygote_client._server.alive()
    assert code == 1 and "1 failed, 2 passed" in output, output
    assert "assert 1 == 2" in output  # assertion rewriting as in a fresh process
    assert (project / "seen.txt").read_text() == f"forked|{project}"
    assert not (project / ".suite-output.txt").exists()
    plain = subprocess.run(
        [os.sys.executable, "-m", "pytest", *ARGS], cwd=project, env=_env(ZYGOTE_PROBE="plain"),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert plain.returncode == code and "1 failed, 2 passed" in plain.stdout


def test_a_run_past_its_timeout_is_killed_with_what_it_started(project: Path) -> None:
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_pytest([*ARGS, "-k", "sleeps"], project, _env(ZYGOTE_SLEEP="1"), timeout=5)
    assert time.monotonic() - started < 60
    pid = int((project / "pid.txt").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    code, output = run_pytest([*ARGS, "-k", "passes"], project, _env(), timeout=120)
    assert code == 0, output  # the server serves on


def test_other_interpreter_settings_run_plainly(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_pytest([*ARGS, "-k", "passes"], project, _env(), timeout=120)
    server = zygote_client._server
    assert server is not None
    served: list[Path] = []

    def serve(argv: object, cwd: Path, env: object, output: Path, timeout: float) -> int:
        served.append(cwd)
        output.write_text("served", encoding="utf-8")
        return 0

    monkeypatch.setattr(server, "run", serve)
    code, _ = run_pytest([*ARGS, "-k", "passes"], project, _env(PYTHONHASHSEED="7"), timeout=120)
    assert code == 0 and served == []
    monkeypatch.setenv(zygote_client.OPT_OUT, "1")
    code, _ = run_pytest([*ARGS, "-k", "passes"], project, _env(), timeout=120)
    assert code == 0 and served == []
    monkeypatch.delenv(zygote_client.OPT_OUT)
    run_pytest([*ARGS, "-k", "passes"], project, _env(), timeout=120)
    assert len(served) == 1


class _Interrupted(Exception):
    pass


def _wait_gone(pid: int, seconds: float) -> None:
    """Wait until `pid` has exited (or is a zombie), instead of sleeping a fixed time."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return
        except psutil.NoSuchProcess:
            return
        time.sleep(0.05)
    raise AssertionError(f"the interrupted run {pid} still runs after {seconds} s")


def test_a_caller_interrupted_mid_run_leaves_no_answer_for_the_next_run(project: Path) -> None:
    """An exception in the caller while a run is in flight (Ctrl-C, a signal-based timeout of
    the calling test) used to leave the server's answers to that run in the pipe: the next run
    read them as its own (a refusal, then every later run one behind). Hostile review 2."""
    (project / "test_short.py").write_text(
        "import os, pathlib, time\n"
        "def test_naps():\n"
        "    pathlib.Path('nap.txt').write_text(str(os.getpid()))\n"
        "    time.sleep(6)\n",
        encoding="utf-8",
    )

    def interrupt(signum: int, frame: object) -> None:
        raise _Interrupted

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.alarm(3)
        with pytest.raises(_Interrupted):
            run_pytest(["test_short.py", "-q", "-p", "no:cacheprovider"], project, _env(), 120)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    nap = project / "nap.txt"  # absent when the run was stopped before its test began
    if nap.exists():
        _wait_gone(int(nap.read_text()), 30)  # the interrupted run has ended
    code, output = run_pytest([*ARGS, "-k", "fails"], project, _env(), timeout=120)
    assert code == 1 and "1 failed" in output, output
    code, output = run_pytest([*ARGS, "-k", "passes"], project, _env(), timeout=120)
    assert code == 0 and "1 passed" in output, output


def test_a_timeout_kills_what_the_run_started_in_a_session_of_its_own(project: Path) -> None:
    """The suite starts the reference with start_new_session=True (conformance/launcher.py), out of
    the run's process group: killing the group alone left it running (hostile review 2)."""
    (project / "test_spawn.py").write_text(
        "import pathlib, subprocess, sys, time\n"
        "def test_spawns():\n"
        "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'],\n"
        "                             start_new_session=True)\n"
        "    pathlib.Path('spawned.txt').write_text(str(child.pid))\n"
        "    time.sleep(300)\n",
        encoding="utf-8",
    )
    with pytest.raises(subprocess.TimeoutExpired):
        run_pytest(["test_spawn.py", "-q", "-p", "no:cacheprovider"], project, _env(), timeout=10)
    spawned = int((project / "spawned.txt").read_text())
    deadline = time.monotonic() + 10
    while psutil.pid_exists(spawned) and time.monotonic() < deadline:
        if psutil.Process(spawned).status() == psutil.STATUS_ZOMBIE:
            break
        time.sleep(0.1)
    alive = psutil.pid_exists(spawned) and psutil.Process(spawned).status() != psutil.STATUS_ZOMBIE
    if alive:
        psutil.Process(spawned).kill()
    assert not alive, "the process the run started in its own session outlived the timeout"


SPAWNS = (
    "import pathlib, subprocess, sys, time\n"
    "def test_spawns():\n"
    "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'],\n"
    "                             start_new_session=True)\n"
    "    pathlib.Path('spawned.txt').write_text(str(child.pid))\n"
    "    time.sleep(300)\n"
)


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


def _pid_in(path: Path, within: float) -> int:
    """The pid a run wrote to `path` (the file can exist before its content is written)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        if text.strip():
            return int(text)
        time.sleep(0.1)
    raise AssertionError(f"{path} never got a pid")


@pytest.mark.parametrize("ending", ["stdin-closed", "sigterm"])
def test_a_server_whose_client_is_gone_takes_the_run_down(project: Path, ending: str) -> None:
    """A test process killed mid-run (SIGKILL of an xdist worker) can no longer time its run
    out, and a SIGTERM to the whole process group (a `timeout`, a cancelled CI job) ends the
    client and the server together: either way the server kills the run with what it started
    (it used to wait forever, or die and leave the run running; hostile reviews 2 and 3).
    A Ctrl-C reaching the server is ignored: its client decides."""
    (project / "test_spawn.py").write_text(SPAWNS, encoding="utf-8")
    server = zygote_client.Zygote(_env())
    run = spawned = None
    try:
        assert server.proc.stdin is not None
        argv = ["test_spawn.py", "-q", "-p", "no:cacheprovider"]
        output = str(project / "out.txt")
        request = {"argv": argv, "cwd": str(project), "env": _env(), "output": output}
        server.proc.stdin.write(json.dumps(request).encode() + b"\n")
        server.proc.stdin.flush()
        run = int(server._reply(deadline=time.monotonic() + 60)["pid"])
        spawned = _pid_in(project / "spawned.txt", 60)
        server.proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert server.alive() and psutil.pid_exists(run)
        if ending == "sigterm":
            server.proc.send_signal(signal.SIGTERM)
        else:
            server.proc.stdin.close()
        server.proc.wait(timeout=30)
        assert _gone(run, 10) and _gone(spawned, 10)
    finally:
        if run is not None:
            kill_run(run)
        if spawned is not None and not _gone(spawned, 0.1):
            psutil.Process(spawned).kill()
        server.abandon(None)
    assert not Path(server.home).exists()
