"""Benchmark the reference's runtime bindings surface against miniflare's R2 binding.

    python bench/run_bindings.py --targets reference,miniflare --out bench/bindings_results.md

Both speak the bindings bridge (docs/bindings-bridge.md): the reference serves it itself;
miniflare through the bridge worker of fixtures/peers/miniflare (start.sh). A separate entry from
bench/run.py because the targets, the start and the operations differ; the load generator
(bench.bindings_load), RSS sampling and table style are the S3 benchmark's. Targets run one after
the other, loopback only, bounded in time and requests. Not a test and never in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bindings_load
from bench.report import _row
from bench.rss import PeakRss
from bench.targets import ROOT


def measure(name: str, args: argparse.Namespace, compat: dict[str, Any]) -> dict[str, Any]:
    """All figures for one target; an `error` entry instead of raising, so one target's failure
    does not lose the other's numbers."""
    out: dict[str, Any] = {"name": name}
    try:
        target = bindings_load.start(name, compat)
    except Exception as exc:  # reported in the table, not raised
        out["error"] = f"did not start: {exc}"
        return out
    out |= {"cold_start_s": target.cold_start_s, "first_call_s": target.first_call_s}
    try:
        with PeakRss(target.pid) as rss:
            out["idle_rss"] = rss.reset()
            phases = bindings_load.small_objects(
                target,
                compat,
                concurrencies=tuple(args.concurrency),
                size=args.small_size,
                seconds=args.phase_seconds,
                max_requests=args.max_requests,
            )
            out["small"] = [
                {
                    **asdict(p),
                    "ops_per_s": p.ops_per_s,
                    "server_cpu_s": cpu,
                    # includes the warm-up requests, which are few (2 per client)
                    "server_cpu_ms_per_op": 1000 * sum(cpu.values()) / max(p.requests, 1),
                }
                for p, cpu in phases
            ]
            out["small_peak_rss"] = rss.peak
    except Exception as exc:  # reported in the table, not raised
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        target.stop()
    return out


def _label(op: str, conc: int) -> str:
    return f"{'greeting (GET /, no binding)' if op == bindings_load.HELLO else op} x{conc}"


def _phase(r: dict[str, Any] | None, op: str, conc: int) -> dict[str, Any] | None:
    if r is None:
        return None
    return next((p for p in r.get("small", []) if (p["op"], p["concurrency"]) == (op, conc)), None)


def render(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """Markdown in bench/report.py's style; ratios are target / reference."""
    names = [r["name"] for r in results]
    ref = next((r for r in results if r["name"] == "reference"), None)
    head = "| | " + " | ".join(names) + " |\n|---|" + "---|" * len(names)
    lines = [
        "# Bindings benchmark results",
        "",
        f"Command: `{meta['command']}`  ",
        f"Date: {meta['date']}; machine: {meta['machine']}; "
        f"small objects {meta['small_size']} B, {meta['phase_seconds']} s per phase; "
        f"compatibility {meta['compat']['date']}, no flags.",
        "Ratios in parentheses are target / reference (higher is better for ops/s).",
        "",
        "## Bindings, small objects: ops/s",
        "",
        head,
    ]
    phases = [
        (p["op"], p["concurrency"]) for p in next((r["small"] for r in results if "small" in r), [])
    ]
    for op, conc in phases:
        vals = [(_phase(r, op, conc) or {}).get("ops_per_s") for r in results]
        refv = (_phase(ref, op, conc) or {}).get("ops_per_s")
        lines.append(_row(_label(op, conc), vals, refv, "{:,.0f}"))
    lines += [
        "",
        "## Bindings, small objects: latency p50 / p99 (ms), errors, load-generator CPU, "
        "server CPU per request",
    ]
    lines += ["", head]
    for op, conc in phases:
        cells = []
        for r in results:
            p = _phase(r, op, conc)
            cells.append(
                "n/a"
                if p is None
                else f"{p['p50_ms']:.2f} / {p['p99_ms']:.2f}"
                + (f", {p['errors']} err" if p["errors"] else "")
                + f", cpu {p['client_cpu']:.0%}"
                + f", srv {p['server_cpu_ms_per_op']:.2f} ms"
            )
        lines.append(f"| {_label(op, conc)} | " + " | ".join(cells) + " |")
    lines += ["", "## Bindings: resources and start", "", head]
    for key, label in (
        ("idle_rss", "RSS after start (MB)"),
        ("small_peak_rss", "peak RSS, small objects (MB)"),
    ):
        vals = [r[key] / 1e6 if r.get(key) else None for r in results]
        lines.append(_row(label, vals, ref[key] / 1e6 if ref and ref.get(key) else None, "{:,.0f}"))
    for key, label in (
        ("cold_start_s", "start to ready (s)"),
        ("first_call_s", "start to first bridge call (s)"),
    ):
        vals = [r.get(key) for r in results]
        lines.append(_row(label, vals, ref.get(key) if ref else None, "{:.2f}"))
    cells = []
    for r in results:
        total: dict[str, float] = {}
        for p in r.get("small", []):
            for proc, sec in p["server_cpu_s"].items():
                total[proc] = total.get(proc, 0.0) + sec
        top = sorted(total.items(), key=lambda kv: -kv[1])[:3]
        cells.append(", ".join(f"{proc} {sec:.1f}" for proc, sec in top) or "n/a")
    lines.append("| server CPU by process, all phases (s) | " + " | ".join(cells) + " |")
    lines += ["", f"Streamed large put/get: {bindings_load.STREAMING_SKIPPED}."]
    failures = [f"- {r['name']}: {r['error']}" for r in results if r.get("error")]
    if failures:
        lines += ["", "## Failures", "", *failures]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--targets", default="reference,miniflare")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "bindings_results.md")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    ap.add_argument("--small-size", type=int, default=4096)
    ap.add_argument("--phase-seconds", type=float, default=3.0)
    ap.add_argument("--max-requests", type=int, default=20_000)
    ap.add_argument("--compat-date", default=None, help="default: today (no flags)")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    compat = bindings_load.default_compat()
    if args.compat_date:
        compat["date"] = args.compat_date
    results = []
    for name in [t.strip() for t in args.targets.split(",") if t.strip()]:
        print(f"bench bindings: {name} ...", file=sys.stderr, flush=True)
        results.append(measure(name, args, compat))
    meta = {
        "command": "python bench/run_bindings.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "small_size": args.small_size,
        "phase_seconds": args.phase_seconds,
        "compat": compat,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(results, meta))
    args.out.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "results": results}, indent=2)
    )
    print(args.out.read_text())
    return 1 if any(r.get("error") for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
