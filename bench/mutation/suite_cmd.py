"""The test command cosmic-ray runs per mutant: `conformance run` once per as-of date.

Exits 0 only when every run passes (the mutant survived); stops at the first failing run and
at the first failing test (-x), so a killed mutant costs seconds. Report folders go to a
temporary directory that is removed afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator

MOTO_STARTUP_S = 30.0


@contextlib.contextmanager
def moto_source() -> Iterator[str]:
    """A loopback moto S3 server for the migration (sippy) tests; its endpoint, stopped after.

    Without a `migration_source` surface those tests are N/A, and every mutant of the migration
    hook and source would survive unseen.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + MOTO_STARTUP_S
        while True:
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto server did not start") from None
                time.sleep(0.1)
        yield endpoint
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--area", action="append", default=[])
    parser.add_argument("--rule", action="append", default=[])
    parser.add_argument("--as-of", action="append", default=[])
    parser.add_argument("--case-timeout", default="60")
    parser.add_argument("--moto", action="store_true", help="a moto server as migration source")
    args = parser.parse_args(argv)
    selection = [x for a in args.area for x in ("--area", a)]
    selection += [x for r in args.rule for x in ("--rule", r)]
    with contextlib.ExitStack() as stack:
        if args.moto:
            endpoint = stack.enter_context(moto_source())
            selection += ["--reference-profile", f"migration_source_endpoint={endpoint}"]
        return _run(args, selection)


def _run(args: argparse.Namespace, selection: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="ec-mutant-") as reports:
        for day in args.as_of or ["today"]:
            date = dt.date.today().isoformat() if day == "today" else day
            command = [
                sys.executable, "-m", "conformance.cli", "run", "-n", "0",
                "--as-of", date, "--report-dir", reports, "--case-timeout", args.case_timeout,
                *selection, "--", "-x", "-q", "-p", "no:randomly", "--model-shrink-seconds", "0",
            ]  # fmt: skip
            proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if proc.returncode != 0:
                sys.stdout.write(proc.stdout.decode("utf-8", "replace")[-4000:])
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
