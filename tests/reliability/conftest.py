"""Reliability tests: crash safety, concurrency and hostile input against a real reference."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from reliability.refproc import RefProcess, assert_no_traceback, start


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    """One reference per module: modules run on different xdist workers in parallel. Its log
    must hold no traceback once the module's hostile requests are done."""
    log = tmp_path_factory.mktemp("rel-log") / "reference.stderr"
    proc = start(tmp_path_factory.mktemp("rel") / "data", log=log)
    yield proc
    proc.stop()
    assert_no_traceback(log)


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Callable[..., RefProcess]]:
    """References of the test's own (crash and restart); all stopped afterwards."""
    started: list[RefProcess] = []

    def _launch(*extra: str, data_dir: Path | None = None) -> RefProcess:
        proc = start(data_dir or tmp_path / "data", *extra)
        started.append(proc)
        return proc

    yield _launch
    for proc in started:
        proc.stop()
