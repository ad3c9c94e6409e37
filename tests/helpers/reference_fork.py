"""A break-check run's reference as a fork, not a fresh interpreter (~0.5 s of CPU less a run).

A fresh `python -m reference_impl` imports uvicorn, starlette, hypercorn, h2, cryptography and
the reference's ~135 modules before it listens. The fork server (helpers/suite_zygote.py)
imports them once (`preload`). Each run forks, before `pytest.main` and so while it is still
single-threaded with no pytest state, a *template*: a process that waits on a pipe. The run's
first reference launch (`conformance.launcher.spawn`, swapped in by `install`) sends the
command, working directory and environment down the pipe; the template becomes that reference
(a session of its own, stdin and stdout on /dev/null, stderr to the run's log) and calls
`reference_impl.__main__.main` as `python -m reference_impl` would. It is the run's child, so
the launcher waits for it, signals it and kills it as it would a `subprocess.Popen`, and the
fork server's kill of a run reaches it with the run's other descendants.

A fresh interpreter is used instead (the launcher's own `subprocess.Popen`) for a second
launch in the same run, a command that is not `python -m reference_impl`, a working directory
holding a `reference_impl` of its own, or a reference whose source changed since the preload
(size or mtime of a file under reference_impl/, or a file added or removed).
`EC_TEST_NO_REFERENCE_FORK=1` (read when the fork server starts) makes every launch fresh.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import forkpipe
import reference_impl

SOURCE = Path(reference_impl.__file__).resolve().parent
# imported by `main` and `serve` on their way to the ready file; most of them lazily there (the
# surfaces, uvicorn's protocol, lifespan and loop, hypercorn for the public TLS surface,
# cryptography for the S3 TLS certificate), the modules a started reference has that the
# import of `reference_impl.__main__` alone does not bring
PRELOAD = (
    "reference_impl.__main__", "reference_impl.server", "reference_impl.tls",
    "reference_impl.public.h2_buffer", "reference_impl.public.tls_send",
    "reference_impl.public.h2_events",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.lifespan.on", "uvicorn.loops.auto", "uvicorn.loops.uvloop", "hypercorn.asyncio",
    "hypercorn.config", "hypercorn.protocol.h11", "hypercorn.protocol.h2", "cryptography.x509",
    "cryptography.x509.oid", "cryptography.hazmat.primitives.hashes",
    "cryptography.hazmat.primitives.serialization",
    "cryptography.hazmat.primitives.asymmetric.ec", "cryptography.hazmat.backends.openssl",
    "importlib.resources.readers", "importlib.readers",
)  # fmt: skip

_preloaded: str | None = None  # the source fingerprint at the preload


def fingerprint() -> str:
    """The reference's source as it is now: every .py file's path, size and mtime."""
    rows = []
    for path in sorted(SOURCE.rglob("*.py")):
        with contextlib.suppress(OSError):
            info = path.stat()
            rows.append(f"{path} {info.st_size} {info.st_mtime_ns}")
    return "\n".join(rows)


def preload() -> None:
    """In the fork server: import the reference as its start would (no thread is started)."""
    global _preloaded
    if os.environ.get("EC_TEST_NO_REFERENCE_FORK"):  # every run launches a fresh interpreter
        return
    try:
        from reference_impl.server import SURFACES

        for name in (*PRELOAD, *SURFACES.values()):
            importlib.import_module(name)
    except Exception:  # a broken reference: every run launches a fresh one, which reports it
        return
    _preloaded = fingerprint()


class ForkedReference(forkpipe.Forked):
    """The template become the reference, seen by the run as a `subprocess.Popen`."""


class Template(forkpipe.Template):
    """The run's side of its template: hands it the first launch, else ends it with the run."""

    forked = ForkedReference

    def spawn(self, cmd: list[str], log: Path) -> Any:
        from conformance import launcher

        prefix = [sys.executable, "-m", "reference_impl"]
        if (self.used or cmd[:3] != prefix or (Path.cwd() / "reference_impl").exists()
                or fingerprint() != _preloaded):  # fmt: skip
            return launcher._popen(cmd, log)
        return self.hand_over(cmd, log)


def install() -> Template | None:
    """In the run, before `pytest.main`: fork the template and make it the launcher's spawn."""
    if _preloaded is None or fingerprint() != _preloaded:
        return None
    pid, write = forkpipe.fork_template(_become_reference)
    from conformance import launcher

    template = Template(pid, write)
    launcher.spawn = template.spawn
    return template


def _become_reference(pipe: int) -> int:
    """In the template: wait for the launch, then run as `python -m reference_impl <argv>`."""
    request = forkpipe.receive_launch(pipe)
    if request is None:
        return 0  # the run ended without launching through it
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    random.seed()  # a fresh interpreter seeds from os.urandom; the fork copied the run's state
    sys.argv = [str(SOURCE / "__main__.py"), *request["argv"]]
    sys.path[0] = request["cwd"]
    from reference_impl.__main__ import main

    # main's return value is its exit status, as `python -m reference_impl` makes it
    return forkpipe.run_to_exit(lambda: sys.exit(main(request["argv"])))
