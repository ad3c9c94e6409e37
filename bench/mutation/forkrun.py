"""The harness's fork server: a mutant's processes forked from one that imported their libraries.

A mutant's test command is four Python processes, each a fresh interpreter importing its
libraries again: `bench.mutation.suite_cmd`, the `conformance run` it starts per date, that
run's pytest, and the reference pytest launches (starlette, uvicorn, hypercorn, cryptography,
eth-tester, SQLAlchemy...). The server (`python -m bench.mutation.forkrun`, one per harness
run) imports the third-party libraries once, and never a module of the project: no
`reference_impl`, no `conformance`, nothing of bench but this file and the standard-library
`forkpipe` it shares with the project tests' fork server (it checks, and refuses to serve
otherwise). Per mutant, after the mutant is written, it forks the test command (`serve`);
that process and each one it starts forks itself instead of starting an interpreter (`spawn`:
the `conformance run` from suite_cmd, pytest from `conformance.cli_run.spawn_pytest`, the
reference from a template forked before `pytest.main`, through
`conformance.spawn_hook.reference`, a seam below the plugin since bench must not import the
plugin), and imports the project's modules from disk, the mutated one included, as a fresh
interpreter would. Each fork takes the command's environment, working directory and output as
`subprocess` would give them, a fresh random seed, and `sys.dont_write_bytecode` from
PYTHONDONTWRITEBYTECODE (cosmic-ray sets it: a mutant written within the second of an earlier
.pyc must not load it). So a child never sees a module of the unmutated tree cached in the
server, nor one of another mutant: the server holds none, and each mutant's processes end with
it.

`EC_MUTATION_NO_FORK=1` (or `bench.mutation.run --no-fork`) runs every process fresh, as before.
Protocol (JSON lines on the server's stdin/stdout, one command at a time): the harness writes
`{"module", "argv", "cwd", "env", "stdout", "stderr"}`; the server answers `{"pid"}` once forked
and `{"exit", "cpu"}` when it ends (the exit status as `subprocess` says it; the CPU seconds of
the command and every descendant it waited for).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import random
import runpy
import signal
import subprocess
import sys
import time
import traceback
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import forkpipe
from forkpipe import Forked

NO_FORK_ENV = "EC_MUTATION_NO_FORK"
PROJECT = ("reference_impl", "conformance")  # never imported by the server
# Third-party modules a mutant's processes import; none starts a thread at import. The pytest
# plugins loaded by `-p` (xdist, pytest_timeout, pytest_rerunfailures) are left to pytest, so
# their assertion rewriting is what a fresh process gets.
PRELOAD = (
    "pytest", "_pytest.python", "_pytest.fixtures", "_pytest.terminal", "_pytest.junitxml",
    "_pytest.assertion.rewrite", "execnet", "boto3", "botocore.session", "botocore.client",
    "requests", "httpx", "yaml", "jsonschema", "referencing", "hypothesis",
    "hypothesis.stateful", "psutil", "filelock", "platformdirs", "defusedxml.ElementTree",
    "jinja2", "markupsafe", "starlette.applications", "starlette.routing",
    "starlette.responses", "starlette.requests", "starlette.middleware", "uvicorn",
    "uvicorn.config", "uvicorn.server", "uvicorn.main", "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.http.h11_impl", "uvicorn.lifespan.on", "uvicorn.loops.auto",
    "uvicorn.loops.uvloop", "uvloop", "httptools", "hypercorn.asyncio", "hypercorn.config",
    "hypercorn.protocol.h11", "hypercorn.protocol.h2", "h2.connection", "cryptography.x509",
    "cryptography.x509.oid", "cryptography.hazmat.primitives.hashes",
    "cryptography.hazmat.primitives.serialization",
    "cryptography.hazmat.primitives.asymmetric.ec", "cryptography.hazmat.backends.openssl",
    "sqlalchemy", "sqlalchemy.orm", "alembic", "eth_tester", "eth_utils", "eth_bloom",
    "google_crc32c", "crc32c", "sqlite3", "asyncio", "email.utils", "xml.etree.ElementTree",
    "concurrent.futures", "importlib.resources.readers", "importlib.readers",
)  # fmt: skip

FORKED = False  # True in a process this server forked (and in the processes it forks)
# the exit handlers the preload registered: a fresh interpreter importing those modules has them
_PRELOAD_EXIT: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []


def enabled() -> bool:
    return not os.environ.get(NO_FORK_ENV)


def project_modules() -> list[str]:
    return [m for m in sys.modules if m.split(".")[0] in PROJECT]


def _become(
    module: str, argv: list[str], cwd: str, env: dict[str, str], before: Callable[[], Any] | None
) -> int:
    """In a fork: run `module` as `python -m module argv` would, with this env and cwd."""
    global FORKED
    FORKED = True
    _forget_parent()
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    random.seed()  # a fresh interpreter seeds from os.urandom; the fork copied the parent's
    importlib.invalidate_caches()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        print(f"No module named {module}", file=sys.stderr)
        return 1
    sys.argv = [spec.origin, *argv]

    def main() -> None:
        if before is not None:
            before()
        runpy.run_module(module, run_name="__main__", alter_sys=True)

    return forkpipe.run_to_exit(main)


def _forget_parent() -> None:
    """Exit handlers and finalizers registered by the process that forked this one are its own:
    run here at exit they would act twice (a `TemporaryDirectory` of suite_cmd's, finalized at
    the exit of the pytest it forked, removed the run's results before it was read). Only the
    preload's handlers stay, as a fresh interpreter importing those modules has them."""
    for fin in list(weakref.finalize._registry):  # type: ignore[attr-defined]
        fin.atexit = False
    atexit._clear()
    weakref.finalize._registered_with_atexit = False  # type: ignore[attr-defined]
    for func, args, kwargs in _PRELOAD_EXIT:
        atexit.register(func, *args, **kwargs)


def _recording(register: Callable[..., Any]) -> Callable[..., Any]:
    def record(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        _PRELOAD_EXIT.append((func, args, kwargs))
        return register(func, *args, **kwargs)

    return record


def spawn(
    module: str,
    argv: list[str],
    env: dict[str, str] | None = None,
    output: int | None = None,
    new_session: bool = False,
    before: Callable[[], Any] | None = None,
) -> Forked:
    """`python -m module argv` as a fork of this process: stdout and stderr to `output` (else
    this process's), in a session of its own with `new_session`; `before` runs first in it."""
    for stream in (sys.stdout, sys.stderr):  # else the child would write the buffer again
        with contextlib.suppress(Exception):
            stream.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if new_session:
                os.setsid()
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            if output is not None:
                os.dup2(output, 1)
                os.dup2(output, 2)
            os.closerange(3, 65536)  # as subprocess's close_fds
            code = _become(module, argv, os.getcwd(), dict(env or os.environ), before)
        except BaseException:
            with contextlib.suppress(Exception):
                traceback.print_exc()
        finally:
            os._exit(code)
    return Forked(pid, [sys.executable, "-m", module, *argv])


def run_captured(module: str, argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`subprocess.run([python, -m, module, *argv], stdout=PIPE, stderr=STDOUT, env=env)` as a
    fork: the exit status and the output."""
    read, write = os.pipe()
    try:
        child = spawn(module, argv, env, output=write, before=_fork_pytest)
    finally:
        os.close(write)
    chunks = []
    with os.fdopen(read, "rb") as pipe:
        while chunk := pipe.read(65536):
            chunks.append(chunk)
    return child.wait(), b"".join(chunks).decode("utf-8", "replace")


def _fork_pytest() -> None:
    """In a forked `conformance run`: its pytest child a fork too."""
    from conformance import cli_run

    cli_run.spawn_pytest = spawn_pytest


def spawn_pytest(argv: list[str]) -> Any:
    """`conformance.cli_run.spawn_pytest` in a forked `conformance run`: pytest as a fork, in a
    session of its own, with the reference's template forked before `pytest.main`."""
    prefix = [sys.executable, "-m", "pytest"]
    if argv[:3] != prefix:
        return subprocess.Popen(argv, start_new_session=True)
    return spawn("pytest", argv[3:], new_session=True, before=_install_template)


class Template(forkpipe.Template):
    """In a forked pytest: a fork made before `pytest.main` (one thread, no pytest state, no
    reference module) that waits on a pipe; the run's first reference launch sends it the
    command and it becomes `python -m reference_impl` (`conformance.spawn_hook.reference`, which
    the launcher uses). Any other launch, or a second one, starts a fresh interpreter."""

    def spawn(self, cmd: list[str], log: Path) -> Any:
        if self.used or cmd[:3] != [sys.executable, "-m", "reference_impl"]:
            with log.open("wb") as stderr:  # as the launcher's own spawn
                return subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                    start_new_session=True,
                )  # fmt: skip
        return self.hand_over(cmd, log)


def _install_template() -> None:
    """In a forked pytest, before `pytest.main`: fork the reference's template."""
    if any(m.split(".")[0] == "reference_impl" for m in sys.modules):
        return  # the template would hold a reference module: launch fresh instead
    pid, write = forkpipe.fork_template(_become_reference)
    from conformance import spawn_hook

    template = Template(pid, write)
    spawn_hook.reference = template.spawn
    atexit.register(template.close)


def _become_reference(pipe: int) -> int:
    """In the template: wait for the launch, then run as `python -m reference_impl <argv>`."""
    request = forkpipe.receive_launch(pipe)
    if request is None:
        return 0  # pytest ended without launching through it
    os.closerange(3, 65536)
    return _become("reference_impl", request["argv"], request["cwd"], request["env"], None)


def preload() -> list[str]:
    """Import PRELOAD, recording the exit handlers it registers; the project modules that are
    imported after it (there must be none)."""
    register = atexit.register
    atexit.register = _recording(register)
    try:
        for name in PRELOAD:
            with contextlib.suppress(ImportError):
                importlib.import_module(name)
    finally:
        atexit.register = register
    return project_modules()


def provide_testing_exception() -> None:
    """Give every process of a mutant the name cosmic-ray's ExceptionReplacer writes.

    The operator turns `except S3Error:` into `except CosmicRayTestingException:`, meaning "this
    handler no longer catches S3Error"; cosmic-ray's own runner puts that class in builtins
    through a sitecustomize. Without it, the first exception reaching the handler raises
    NameError instead (a 500 where the mutant meant the S3Error to pass on): a kill the mutant
    did not earn, as several ExceptionReplacer kills were before this existed (2026-11-29).
    Forked children inherit it; `--no-fork` processes get it from SITECUSTOMIZE_DIR."""
    import builtins

    from cosmic_ray.exceptions import CosmicRayTestingException

    builtins.CosmicRayTestingException = CosmicRayTestingException  # type: ignore[attr-defined]


def serve() -> int:
    """The server: preload, check, then fork one command per request line."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the harness's to handle
    provide_testing_exception()
    found = preload()
    proto_in, proto_out = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    _reply(proto_out, {"ready": not found, "project_modules": found, "modules": len(sys.modules)})
    if found:
        return 1
    for line in proto_in:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.setsid()
                fds = [os.open(os.devnull, os.O_RDONLY)]
                for key in ("stdout", "stderr"):
                    fds.append(os.open(request[key], os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                os.closerange(3, 65536)
                code = _become(request["module"], request["argv"], request["cwd"],
                               request["env"], None)  # fmt: skip
            except BaseException:
                with contextlib.suppress(Exception):
                    traceback.print_exc()
            finally:
                os._exit(code)
        _reply(proto_out, {"pid": pid})
        _, status, usage = os.wait4(pid, 0)
        cpu = usage.ru_utime + usage.ru_stime
        _reply(proto_out, {"exit": os.waitstatus_to_exitcode(status), "cpu": cpu})
    return 0


def _reply(out: IO[bytes], doc: dict[str, Any]) -> None:
    out.write(json.dumps(doc).encode("utf-8") + b"\n")
    out.flush()


if __name__ == "__main__":  # the module proper, not __main__: its FORKED is the one forks read
    from bench.mutation import forkrun

    raise SystemExit(forkrun.serve())
