"""A loopback moto S3 server, the migration (sippy) source of the project's tests."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import requests

STARTUP_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def moto_server() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start `moto_server` on a free loopback port; yields (endpoint, process); stops it."""
    port = free_port()
    exe = shutil.which("moto_server") or shutil.which("moto_server", path=sys.prefix + "/bin")
    cmd = [exe] if exe else [sys.executable, "-m", "moto.server"]
    process = subprocess.Popen(
        [*cmd, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    try:
        while True:
            try:
                requests.get(endpoint + "/moto-api/", timeout=1)
                break
            except requests.RequestException:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto_server did not start") from None
                time.sleep(0.1)
        yield endpoint, process
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
