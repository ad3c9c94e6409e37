"""Render benchmark results as markdown tables, each figure with its ratio to the reference."""

from __future__ import annotations

from typing import Any

MIB = 1 << 20


def _ratio(value: float | None, ref: float | None) -> str:
    if value is None or not ref:
        return ""
    return f" ({value / ref:.2f}x)"


def _num(value: float | None, fmt: str = "{:,.0f}") -> str:
    return "n/a" if value is None else fmt.format(value)


def _row(label: str, values: list[float | None], ref: float | None, fmt: str) -> str:
    cells = [_num(v, fmt) + _ratio(v, ref) for v in values]
    return f"| {label} | " + " | ".join(cells) + " |"


def render(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """Markdown for `results` (one dict per target, from run.py); ratios are target / reference."""
    names = [r["name"] for r in results]
    ref = next((r for r in results if r["name"] == "reference"), None)
    head = "| | " + " | ".join(names) + " |\n|---|" + "---|" * len(names)
    lines = [
        "# Benchmark results",
        "",
        f"Command: `{meta['command']}`  ",
        f"Date: {meta['date']}; machine: {meta['machine']}; "
        f"small objects {meta['small_size']} B, {meta['phase_seconds']} s per phase; "
        f"streamed object {meta['big_bytes'] / MIB:.0f} MiB.",
        "Ratios in parentheses are target / reference (higher is better for ops/s and MB/s).",
        "",
        "## Small objects: ops/s",
        "",
        head,
    ]
    measured = next((r["small"] for r in results if r.get("small")), [])  # first that ran
    phases = [(p["op"], p["concurrency"]) for p in measured]

    def phase(r: dict[str, Any], op: str, conc: int) -> dict[str, Any] | None:
        return next(
            (p for p in r.get("small", []) if (p["op"], p["concurrency"]) == (op, conc)), None
        )

    for op, conc in phases:
        vals = [(phase(r, op, conc) or {}).get("ops_per_s") for r in results]
        refv = (phase(ref, op, conc) or {}).get("ops_per_s") if ref else None
        lines.append(_row(f"{op.upper()} x{conc}", vals, refv, "{:,.0f}"))
    lines += ["", "## Small objects: latency p50 / p99 (ms), errors, load-generator CPU", "", head]
    for op, conc in phases:
        cells = []
        for r in results:
            p = phase(r, op, conc)
            cells.append(
                "n/a"
                if p is None
                else f"{p['p50_ms']:.2f} / {p['p99_ms']:.2f}"
                + (f", {p['errors']} err" if p["errors"] else "")
                + f", cpu {p['client_cpu']:.0%}"
            )
        lines.append(f"| {op.upper()} x{conc} | " + " | ".join(cells) + " |")
    lines += ["", "## Streaming and resources", "", head]

    def stream(r: dict[str, Any], op: str) -> float | None:
        s = next((s for s in r.get("stream", []) if s["op"] == op), None)
        return s["mb_per_s"] if s and s["status"] < 300 else None

    for op in ("put", "get"):
        label = f"{meta['big_bytes'] / MIB:.0f} MiB {op.upper()} (MB/s)"
        vals = [stream(r, op) for r in results]
        lines.append(_row(label, vals, stream(ref, op) if ref else None, "{:,.0f}"))
    for key, label in (
        ("idle_rss", "RSS after start (MB)"),
        ("small_peak_rss", "peak RSS, small objects (MB)"),
        ("stream_peak_rss", "peak RSS, streaming (MB)"),
    ):
        vals = [r[key] / 1e6 if r.get(key) else None for r in results]
        lines.append(_row(label, vals, ref[key] / 1e6 if ref and ref.get(key) else None, "{:,.0f}"))
    vals = [r.get("cold_start_s") for r in results]
    lines.append(
        _row("start to ready (s)", vals, ref.get("cold_start_s") if ref else None, "{:.2f}")
    )
    lines += _ceilings(meta.get("ceilings", []), meta["big_bytes"])
    failures = [f"- {r['name']}: {r['error']}" for r in results if r.get("error")]
    if failures:
        lines += ["", "## Failures", "", *failures]
    if meta.get("suite"):
        lines += [
            "",
            "## Suite wall time against the reference",
            "",
            "| workers | seconds | exit |",
        ]
        lines += ["|---|---|---|"]
        lines += [
            f"| -n {s['workers']} | {s['seconds']:.1f} | {s['exit']} |" for s in meta["suite"]
        ]
    return "\n".join(lines) + "\n"


def _ceilings(measured: list[dict[str, Any]], big_bytes: int) -> list[str]:
    """The machine's MD5 and durable-disk speeds (bench/machine.py), before / after the run."""
    if not measured:
        return []

    def each(key: str, fmt: str) -> str:
        return " / ".join(fmt.format(m[key]) for m in measured)

    mode = "with O_DIRECT" if all(m["disk_direct"] for m in measured) else "buffered"
    when = " / ".join(["before", "after"][: len(measured)])
    md5, durable = each("md5_mb_per_s", "{:,.0f}"), each("disk_durable_mb_per_s", "{:,.0f}")
    writes, fsync = each("disk_write_mb_per_s", "{:,.0f}"), each("disk_fsync_s", "{:.2f}")
    return [
        "",
        f"Ceilings of this machine for a durable streamed PUT ({when} the targets, "
        f"`bench/machine.py`): MD5 on one core {md5} MB/s; {big_bytes / MIB:.0f} MiB written "
        f"{mode} in 1 MiB pieces then fsynced {durable} MB/s (writes {writes} MB/s, fsync "
        f"{fsync} s). "
        "No server can store and hash the body faster than the lower of the two.",
    ]
