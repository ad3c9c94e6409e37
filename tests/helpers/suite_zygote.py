"""A fork server for break-check runs: pytest and the suite's libraries imported once, each run
a fork of that process.

A project session makes ~300 suite runs; each used to start a fresh interpreter and import
pytest, boto3, jsonschema, hypothesis and the rest again (~0.7 s of CPU apiece). This process
imports them once and forks per run; the child becomes its own process group, takes the run's
working directory, environment and output file, and calls `pytest.main` as `python -m pytest`
would. The plugins named with `-p` by module name (xdist, pytest_timeout, ...) are left
unimported here, so pytest loads them itself and assertion rewriting is what a fresh process
gets; the suite's test modules are never imported here either.

Protocol (one request at a time, JSON lines): the client writes `{"argv", "cwd", "env",
"output"}` on stdin; the server answers `{"pid": N}` once forked and `{"exit": code}` when the
child ends (negative for a signal, as `subprocess` says). The server ignores SIGINT (a Ctrl-C
reaches its client, which kills the run and the server); if its client goes away mid-run
(stdin closes, or a reply meets a broken pipe) or it gets SIGTERM or SIGHUP, it kills the run
with everything the run started and exits.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil

# Heavy libraries a suite run imports anyway; none of them starts a thread at import time.
PRELOAD = (
    "pytest", "_pytest.python", "_pytest.fixtures", "_pytest.terminal", "_pytest.junitxml",
    "execnet", "boto3", "botocore.session", "botocore.client", "requests", "yaml",
    "jsonschema", "hypothesis", "hypothesis.stateful", "psutil", "filelock", "platformdirs",
    "defusedxml.ElementTree",
)  # fmt: skip


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def preload() -> None:
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    # The suite's plugin (loaded by its entry-point name, edge_conformance, so pytest neither
    # marks nor warns about its module) and the packaged catalog, parsed and validated once
    # (~0.4 s a run): load_catalog() caches it for every fork.
    with contextlib.suppress(Exception):
        from conformance.model.catalog import load_catalog

        __import__("conformance.plugin.plugin")
        load_catalog()
    # Every run's collection reads the rule marks of the suite's modules from their source
    # (plugin/prefilter.py, plugin/uncollected.py: ~0.1 s of CPU a run); the scans are cached by
    # source text (conformance/coverage.py), so one here serves every fork.
    with contextlib.suppress(Exception):
        from conformance.coverage import literal_rule_ids, rule_locations
        from conformance.plugin.collection import SUITE_DIR

        for module in Path(SUITE_DIR).rglob("*.py"):
            literal_rule_ids(module)
            rule_locations(module)
    # The reference a run launches, imported here and forked per run (helpers/reference_fork.py;
    # this file runs as a script, so its folder is on sys.path)
    with contextlib.suppress(ImportError):
        import reference_fork

        reference_fork.preload()
    # What is loaded by now lives as long as the server: out of the collector's reach, each
    # fork's collections (the automatic ones, pytest's at its end) skip it.
    gc.collect()
    gc.freeze()


def run_child(request: dict[str, Any], replies: int) -> int:
    """In the forked child: become the run, as `python -m pytest <argv>` from `cwd`."""
    os.close(replies)  # the server's answers are not the run's to hold open
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the server ignores it
    for ending in ENDING_SIGNALS:
        signal.signal(ending, signal.SIG_DFL)
    os.setsid()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)
    sys.path[0] = request["cwd"]  # what `python -m` puts first
    sys.argv = ["pytest", *request["argv"]]
    import pytest

    # forked now, while the run has no thread and no pytest state: its first reference
    fork = sys.modules.get("reference_fork")
    template = fork.install() if fork is not None else None
    try:
        code = int(pytest.main(request["argv"]))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    if template is not None:
        template.close()
    atexit._run_exitfuncs()  # what interpreter shutdown would run
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    return code


def kill_run(pid: int) -> None:
    """Kill a run: its process group and every process it started, the reference included
    (the suite starts it in a session of its own, out of reach of the group)."""
    # stopped first, so that nothing it starts while its descendants are listed escapes
    for target, sig in ((os.killpg, signal.SIGSTOP), (os.kill, signal.SIGSTOP)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target(pid, sig)
    try:
        descendants = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        descendants = []  # it has just ended
    # by pid too: before its setsid() the run is not yet the leader of a group of its own
    for target in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target(pid, signal.SIGKILL)
    for process in descendants:
        with contextlib.suppress(psutil.Error):
            process.kill()


class Requests:
    """Request lines read from fd 0 unbuffered, so a select on it says what is really there."""

    def __init__(self) -> None:
        self.buffer = b""
        self.closed = False

    def feed(self) -> None:
        chunk = os.read(0, 65536)
        self.buffer += chunk
        self.closed = not chunk

    def __iter__(self) -> Iterator[dict[str, Any]]:
        while True:
            while b"\n" not in self.buffer and not self.closed:
                self.feed()
            if b"\n" not in self.buffer:
                return
            line, self.buffer = self.buffer.split(b"\n", 1)
            yield json.loads(line)


def wait_run(pid: int, requests: Requests) -> int | None:
    """The run's wait status, or None when the client went away first (the run is killed)."""
    try:
        watch = [0, os.pidfd_open(pid)]
    except (AttributeError, OSError):  # no pidfd: look again every 0.1 s
        watch = [0]
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            ready, _, _ = select.select(watch, [], [], None if len(watch) == 2 else 0.1)
            if 0 in ready:
                requests.feed()
                if requests.closed:
                    kill_run(pid)
                    os.waitpid(pid, 0)
                    return None
    finally:
        for fd in watch[1:]:
            os.close(fd)


def _end(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def serve() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for ending in ENDING_SIGNALS:  # a SIGTERM to the whole group must not orphan the run
        signal.signal(ending, _end)
    preload()
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    requests = Requests()
    for request in requests:
        if threading.active_count() != 1:  # a fork would copy a thread's locks mid-use
            replies.write(json.dumps({"error": "the server has threads"}) + "\n")
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = run_child(request, replies.fileno())
            finally:
                os._exit(code)
        reaped = False
        try:
            replies.write(json.dumps({"pid": pid}) + "\n")
            status = wait_run(pid, requests)
            reaped = True
            if status is None:
                return
            replies.write(json.dumps({"exit": os.waitstatus_to_exitcode(status)}) + "\n")
        finally:
            # the client gone (a broken pipe), a SIGTERM or SIGHUP: the run goes with the server
            if not reaped:
                kill_run(pid)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)


if __name__ == "__main__":
    serve()
