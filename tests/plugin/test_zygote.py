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
from helpers.zygote_client import run_pytest

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
    time.sleep(5)  # the interrupted run has ended by now and its answers were written
    code, output = run_pytest([*ARGS, "-k", "fails"], project, _env(), timeout=120)
    assert code == 1 and "1 failed" in output, output
    code, output = run_pytest([*ARGS, "-k", "passes"], project, _env(), timeout=120)
    assert code == 0 and "1 passed" in output, output


def test_a_timeout_kills_what_the_run_started_in_a_session_of_its_own(project: Path) -> None:
    """The suite starts the reference with start_new_session=True (plugin/launcher.py), out of
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
        run_pytest(["test_spawn.py", "-q", "-p", "no:cacheprovider"], project, _env(), timeout=20)
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
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.1)
    return False


def test_a_client_gone_mid_run_takes_the_run_and_the_server_down(project: Path) -> None:
    """A test process killed mid-run (SIGKILL of an xdist worker) can no longer time its run
    out: the server sees its stdin close, kills the run with what it started, and exits
    (it used to wait for the run forever; hostile review 2)."""
    (project / "test_spawn.py").write_text(SPAWNS, encoding="utf-8")
    server = zygote_client.Zygote(_env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
    assert server.proc.stdin is not None
    request = {"argv": ["test_spawn.py", "-q", "-p", "no:cacheprovider"], "cwd": str(project),
               "env": _env(), "output": str(project / "out.txt")}  # fmt: skip
    server.proc.stdin.write(json.dumps(request).encode() + b"\n")
    server.proc.stdin.flush()
    run = int(server._reply(deadline=time.monotonic() + 60)["pid"])
    deadline = time.monotonic() + 60
    while not (project / "spawned.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    spawned = int((project / "spawned.txt").read_text())
    server.proc.send_signal(signal.SIGINT)  # a Ctrl-C reaches the server too: ignored
    time.sleep(0.5)
    assert server.alive() and psutil.pid_exists(run)
    server.proc.stdin.close()  # the client is gone
    assert server.proc.wait(timeout=30) == 0
    assert _gone(run, 10) and _gone(spawned, 10)
    server.stop()
    assert not Path(server.home).exists()
