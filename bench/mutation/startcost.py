"""Where a mutant's run spends its CPU before and after its tests: `python -m
bench.mutation.startcost [--repeat N] [SELECTION ARGS]` (default `--area gateway`).

Each piece of a mutant's test command is run on its own, fresh, N times; printed per piece: the
median CPU seconds (user + system, the process and what it waited for) and wall seconds. On a
shared machine the CPU column is the one to compare. The pieces: an interpreter importing
suite_cmd (the command cosmic-ray starts), one importing the `conformance run` CLI, pytest with
the suite's plugins collecting the selection (`--collect-only`), the reference started until
its ready file appears and then stopped, and the fork server's preload (paid once a harness
run). A mutant's whole run (bench.mutation.run prints its CPU) minus these is its tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from bench.mutation.plan import ROOT
from bench.mutation.suite_cmd import PLUGINS


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    cpu, wall = _cpu(), time.monotonic()
    subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    return _cpu() - cpu, time.monotonic() - wall


def _reference(env: dict[str, str]) -> tuple[float, float, float]:
    """CPU until ready, wall until ready, CPU of the whole life (stopped by SIGTERM)."""
    with tempfile.TemporaryDirectory(prefix="ec-startcost-") as tmp:
        ready = Path(tmp) / "ready.json"
        command = [
            sys.executable, "-m", "reference_impl", "--data-dir", f"{tmp}/data", "--port", "0",
            "--ready-file", str(ready), "--quiet",
        ]  # fmt: skip
        cpu, wall = _cpu(), time.monotonic()
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
        while not ready.is_file():
            if proc.poll() is not None:
                raise RuntimeError("the reference exited before it was ready")
            time.sleep(0.01)
        times = psutil.Process(proc.pid).cpu_times()
        up = time.monotonic() - wall
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        return times.user + times.system, up, _cpu() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args, selection = parser.parse_known_args(argv)
    selection = selection or ["--area", "gateway"]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    pieces = {
        "interpreter + suite_cmd import": [sys.executable, "-c", "import bench.mutation.suite_cmd"],
        "interpreter + conformance CLI import": [
            sys.executable, "-c", "import conformance.cli, conformance.cli_run"
        ],
        "pytest + plugins + collection": [
            sys.executable, "-m", "pytest", "--pyargs", "conformance.suite", "-p",
            "no:cacheprovider", "-n", "0", "--target", "reference", "--collect-only", "-q",
            *PLUGINS, *selection,
        ],
        "fork server preload (once a run)": [
            sys.executable, "-c", "from bench.mutation import forkrun; forkrun.preload()"
        ],
    }  # fmt: skip
    print("| piece | CPU s (median) | wall s (median) |")
    print("|---|---:|---:|")
    for name, command in pieces.items():
        runs = [_timed(command, env) for _ in range(args.repeat)]
        cpu, wall = (statistics.median(r[i] for r in runs) for i in (0, 1))
        print(f"| {name} | {cpu:.2f} | {wall:.2f} |", flush=True)
    refs = [_reference(env) for _ in range(args.repeat)]
    up_cpu, up_wall, life = (statistics.median(r[i] for r in refs) for i in (0, 1, 2))
    print(f"| reference start until ready | {up_cpu:.2f} | {up_wall:.2f} |")
    print(f"| reference start, ready, SIGTERM stop | {life:.2f} | |")
    print(f"(load average {os.getloadavg()[0]:.1f}, {args.repeat} runs each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
