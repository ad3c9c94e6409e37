"""Benchmark the reference against peers, side by side, with one load generator.

    python bench/run.py --targets reference,moto,seaweedfs,s3rver --out bench/results.md

Each target is started (reference: `python -m reference_impl`; peers: their start scripts),
measured with bench.load while bench.rss samples its process tree, and stopped before the next
starts, so targets never compete for the two cores. Loopback only, bounded in time and requests.
Not a test and never in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import load, machine, report
from bench.rss import PeakRss
from bench.targets import ROOT, clean_env, start

SETTLE_S = 2.0  # after the sync between targets


def measure(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """All figures for one target; an `error` entry instead of raising, so one peer's failure
    does not lose the others' numbers."""
    out: dict[str, Any] = {"name": name}
    try:
        running = start(name)
    except Exception as exc:  # reported in the table, not raised
        out["error"] = f"did not start: {exc}"
        return out
    out["cold_start_s"] = running.cold_start_s
    try:
        with PeakRss(running.pid) as rss:
            out["idle_rss"] = rss.reset()
            phases = load.small_objects(
                running,
                concurrencies=tuple(args.concurrency),
                size=args.small_size,
                seconds=args.phase_seconds,
                max_requests=args.max_requests,
            )
            out["small"] = [{**asdict(p), "ops_per_s": p.ops_per_s} for p in phases]
            out["small_peak_rss"] = rss.peak
            if args.big_mib:
                rss.reset()
                streams = load.streaming(running, args.big_mib << 20)
                out["stream"] = [{**asdict(s), "mb_per_s": s.mb_per_s} for s in streams]
                out["stream_peak_rss"] = rss.peak
    except Exception as exc:  # reported in the table, not raised
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        running.stop()
    return out


def suite_times(workers: list[int]) -> list[dict[str, Any]]:
    """Wall time of `conformance run` against the reference with each worker count."""
    exe = Path(sys.executable).with_name("conformance")
    times = []
    for n in workers:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [str(exe), "run", "-n", str(n), "--report-dir", "/tmp/ec-bench-reports"],
            cwd=ROOT,
            env=clean_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        times.append({"workers": n, "seconds": time.perf_counter() - t0, "exit": proc.returncode})
    return times


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--targets", default="reference,moto,seaweedfs,s3rver")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results.md")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    ap.add_argument("--small-size", type=int, default=4096)
    ap.add_argument("--phase-seconds", type=float, default=3.0)
    ap.add_argument("--max-requests", type=int, default=20_000)
    ap.add_argument("--big-mib", type=int, default=1024, help="streamed object; 0 skips")
    ap.add_argument("--suite", type=int, nargs="*", default=[], help="suite runs: worker counts")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.pop("AWS_CA_BUNDLE", None)  # plain-http loopback endpoints
    results = []
    # the machine's ceilings for a durable streamed PUT, before and after the targets (the
    # disk's speed drifts from minute to minute on these VMs): bench/machine.py
    ceilings = [machine.ceilings(args.big_mib << 20)] if args.big_mib else []
    for name in [t.strip() for t in args.targets.split(",") if t.strip()]:
        # the previous target's buffered 1 GiB would otherwise be written back (and its data
        # dir freed) while this one is measured: flush first, so no target pays for another
        os.sync()
        time.sleep(SETTLE_S)
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        results.append(measure(name, args))
    if args.big_mib:
        ceilings.append(machine.ceilings(args.big_mib << 20))
    meta = {
        "ceilings": ceilings,
        "command": "python bench/run.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "small_size": args.small_size,
        "phase_seconds": args.phase_seconds,
        "big_bytes": args.big_mib << 20,
        "suite": suite_times(args.suite) if args.suite else [],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report.render(results, meta))
    args.out.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "results": results}, indent=2)
    )
    print(args.out.read_text())
    return 1 if any(r.get("error") for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
