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
child ends (negative for a signal, as `subprocess` says).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading
from typing import Any

# Heavy libraries a suite run imports anyway; none of them starts a thread at import time.
PRELOAD = (
    "pytest", "_pytest.python", "_pytest.fixtures", "_pytest.terminal", "_pytest.junitxml",
    "execnet", "boto3", "botocore.session", "botocore.client", "requests", "yaml",
    "jsonschema", "hypothesis", "hypothesis.stateful", "psutil", "filelock", "platformdirs",
    "defusedxml.ElementTree",
)  # fmt: skip


def preload() -> None:
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    # The suite's plugin (loaded by its entry-point name, edge_conformance, so pytest neither
    # marks nor warns about its module) and the packaged catalog, parsed and validated once
    # (~0.4 s a run): load_catalog() caches it for every fork.
    with contextlib.suppress(Exception):
        from conformance.plugin.catalog import load_catalog

        __import__("conformance.plugin.plugin")
        load_catalog()


def run_child(request: dict[str, Any], replies: int) -> int:
    """In the forked child: become the run, as `python -m pytest <argv>` from `cwd`."""
    os.close(replies)  # the server's answers are not the run's to hold open
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

    try:
        code = int(pytest.main(request["argv"]))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()  # what interpreter shutdown would run
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    return code


def serve() -> None:
    preload()
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    for line in sys.stdin:
        request = json.loads(line)
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
        replies.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        replies.write(json.dumps({"exit": os.waitstatus_to_exitcode(status)}) + "\n")


if __name__ == "__main__":
    serve()
