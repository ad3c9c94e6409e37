"""Start and stop `python -m reference_impl` for project tests (ephemeral loopback ports).

One launcher for every project test that needs a live reference: the ready file is the only
interface, exactly as for the suite's own launcher.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conformance.clients.s3 import S3Client

STARTUP_TIMEOUT = 30.0


def launch_reference(
    data_dir: Path, *extra: str, timeout: float = STARTUP_TIMEOUT, log: Path | None = None
) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """The running process and its ready document; raises when it exits or hangs first.
    With `log`, the reference's stderr goes to that file (else it is inherited)."""
    ready_file = data_dir.parent / f"{data_dir.name}-ready-{time.monotonic_ns()}.json"
    cmd = [sys.executable, "-m", "reference_impl", "--port", "0", "--ready-file",
           str(ready_file), "--data-dir", str(data_dir), "--quiet", *extra]  # fmt: skip
    if log is None:
        process = subprocess.Popen(cmd)
    else:
        with log.open("ab") as stderr:
            process = subprocess.Popen(cmd, stderr=stderr)
    deadline = time.monotonic() + timeout
    while not ready_file.exists():
        if process.poll() is not None:
            raise RuntimeError(f"reference exited with {process.returncode} before ready")
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise RuntimeError("reference did not become ready in time")
        time.sleep(0.02)
    return process, json.loads(ready_file.read_text("utf-8"))


def stop_process(process: subprocess.Popen[bytes], grace: float = 10) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def s3_client_on_reference(data_dir: Path, prefix: str) -> Iterator[S3Client]:
    """A reference on `data_dir` and the suite's S3 client of it (names under `prefix`),
    stopped on the way out."""
    process, ready = launch_reference(data_dir)
    try:
        yield S3Client.from_surface(ready["surfaces"]["s3"], prefix)
    finally:
        stop_process(process)
