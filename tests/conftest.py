"""Project tests: pytester drives the plugin in throw-away pytest runs."""

import atexit
import os
import shutil
import tempfile

import pytest

pytest_plugins = ["pytester"]


def _cache_subprocess_bytecode() -> None:
    """The project's tests start ~1,000 Python subprocesses (suite runs, references, the CLI).
    Where the environment sets PYTHONDONTWRITEBYTECODE (this machine and CI do) each compiled
    every module it imported again, ~1.5 s of CPU per process. Their bytecode goes to one cache
    for the session instead: a private folder (mode 0700, unguessable name: a shared, guessable
    one in /tmp would let another user plant bytecode), removed when the session ends, never in
    the tree. Python writes each file atomically, so xdist workers may share it; they inherit
    the variable. `EC_TEST_NO_PYCACHE=1` keeps the environment as it is."""
    if os.environ.get("EC_TEST_NO_PYCACHE") == "1" or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    folder = tempfile.mkdtemp(prefix="ec-test-pycache-")
    atexit.register(shutil.rmtree, folder, True)
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_cache_subprocess_bytecode()  # at import: before pytest-xdist starts its workers


def pytest_configure() -> None:
    """Suite runs started by the project's tests keep their safety journals, locks and run
    registry (docs/safety.md) in a throw-away state directory, never the user's own."""
    if "CONFORMANCE_STATE_DIR" not in os.environ:
        folder = tempfile.mkdtemp(prefix="ec-test-state-")
        os.environ["CONFORMANCE_STATE_DIR"] = folder
        atexit.register(shutil.rmtree, folder, True)


@pytest.hookimpl(optionalhook=True)  # `-p no:xdist` has no such hook
def pytest_xdist_make_scheduler(config: object, log: object) -> object:
    """`-n N`: the longest tests are handed out first (helpers/schedule.py)."""
    from helpers.schedule import make_scheduler

    return make_scheduler(config, log)
