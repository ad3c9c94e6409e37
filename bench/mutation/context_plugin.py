"""pytest plugin of the coverage baseline: each suite test's window gets its own coverage context
in every process of the run, the reference subprocess included (bench/mutation/contexts.py).

Loaded (`-p bench.mutation.context_plugin`) only when the baseline runs under coverage with
EC_MUTCTX_DIR set. Before a test's setup it writes the context `DAY|node id` to that directory
and signals every process the sitecustomize registered (SIGUSR1) but its own ancestors (the
`conformance run` and harness processes waiting on it); each switches its coverage context and
acknowledges, and the test starts only once all have (a missing ack makes the whole record
unusable: every mutant then runs its whole selection). So whatever the reference
executes while a test runs (its requests, background work the test waits for) is recorded under
that test, since `-n 0` runs one test at a time. Work the test cannot own is recorded under
`DAY|@shared`: a fixture wider than a function (its value, made once, serves later tests), the
teardown that ends a module or class, and what runs after the last test; the reference's
start is recorded under no context. A mutant on such a line runs its whole selection.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import psutil
import pytest

DIR_ENV, DAY_ENV = "EC_MUTCTX_DIR", "EC_MUTCTX_DAY"
SHARED = "@shared"
ACK_TIMEOUT = 120.0  # a loaded 2-core machine can leave a process unscheduled for seconds
RULE_MARK = "rule"  # the suite's `pytest.mark.rule(id, ...)` (bench may not import the plugin)


class _Switcher:
    """Switch the coverage context of every registered process, waiting for each to ack."""

    def __init__(self, workdir: Path, day: str) -> None:
        self.workdir, self.day, self.seq = workdir, day, 0
        self.known: dict[int, float] = {}  # pid -> create time, checked to be one of ours
        self.current = ""
        self.rules: dict[str, list[str]] = {}  # node id -> its rule ids
        # the processes waiting on this one (`conformance run`, the harness's command) run no
        # test: not switched, whatever reference code they ran counts as outside every test
        self.ancestors = {p.pid for p in psutil.Process().parents()}

    def _ours(self, pid: int) -> bool:
        """A registered pid is signalled only while it is the process that registered (the
        same create time, EC_MUTCTX_DIR in its environment): never an unrelated reused pid."""
        try:
            proc = psutil.Process(pid)
            created = proc.create_time()
            if self.known.get(pid) == created:
                return True
            if proc.environ().get(DIR_ENV) != str(self.workdir):
                return False
        except psutil.Error:
            return False
        self.known[pid] = created
        return True

    def switch(self, label: str) -> None:
        context = f"{self.day}|{label}"
        if context == self.current:
            return
        self.current, self.seq = context, self.seq + 1
        tmp = self.workdir / "context.tmp"
        tmp.write_text(f"{self.seq}\n{context}", "utf-8")
        os.replace(tmp, self.workdir / "context")
        waiting = []
        for entry in (self.workdir / "pids").iterdir():
            pid = int(entry.name)
            if pid not in self.ancestors and self._ours(pid):
                os.kill(pid, signal.SIGUSR1)  # our own process too: its handler runs at once
                waiting.append(pid)
        deadline = time.monotonic() + ACK_TIMEOUT
        for pid in waiting:
            ack = self.workdir / "ack" / str(pid)
            while not _acked(ack, self.seq):
                if not psutil.pid_exists(pid):
                    break
                if time.monotonic() > deadline:
                    # a window that may be misattributed: the recording is not used at all
                    (self.workdir / "failed").write_text(f"no ack from {pid}", "utf-8")
                    return
                time.sleep(0.001)


def _acked(path: Path, seq: int) -> bool:
    try:
        return int(path.read_text("utf-8") or 0) >= seq
    except (OSError, ValueError):
        return False


SWITCHER = pytest.StashKey[_Switcher]()


def pytest_configure(config: pytest.Config) -> None:
    workdir = os.environ.get(DIR_ENV)
    if not workdir:
        return
    if config.getoption("numprocesses", None):
        raise pytest.UsageError("the context baseline needs -n 0: one test at a time")
    config.stash[SWITCHER] = _Switcher(Path(workdir), os.environ.get(DAY_ENV, ""))


def _switcher(config: pytest.Config) -> _Switcher | None:
    return config.stash.get(SWITCHER, None)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, Any, None]:
    if (sw := _switcher(item.config)) is not None:
        # every rule the test is marked with: the harness keeps those its baseline ran
        marks = item.iter_markers(RULE_MARK)
        sw.rules[item.nodeid] = sorted({str(a) for mark in marks for a in mark.args})
        sw.switch(item.nodeid)
    yield


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_fixture_setup(fixturedef: Any, request: Any) -> Generator[None, Any, None]:
    sw = _switcher(request.config)
    if sw is None or fixturedef.scope == "function":
        yield
        return
    before = sw.current.partition("|")[2]
    sw.switch(SHARED)
    yield
    if before:
        sw.switch(before)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, None]:
    sw = _switcher(item.config)
    if sw is not None and (nextitem is None or nextitem.parent is not item.parent):
        sw.switch(SHARED)  # fixtures of the module / class / session end here
    yield


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if (sw := _switcher(session.config)) is not None:
        sw.switch(SHARED)
        path = sw.workdir / f"rules-{sw.day}.json"
        path.write_text(json.dumps(sw.rules), "utf-8")
