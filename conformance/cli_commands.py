"""The small subcommands: serve, targets, report, diff. Each returns an exit status."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from conformance.model import targets
from conformance.report.load import ResultsError, load_results, shape_problem

REFERENCE_SURFACES = ("s3", "rules_api", "mgmt", "gateway", "public")


def serve(
    data_dir: Path,
    port: int,
    behaviour_date: str | None,
    profile: list[str],
    host: str = "127.0.0.1",
) -> int:
    """Run the bundled reference in the foreground; it prints its URLs and credentials."""
    from reference_impl.__main__ import main as reference_main  # the reference's own launcher

    argv = ["--data-dir", str(data_dir), "--port", str(port), "--host", host]
    if behaviour_date:
        argv += ["--behaviour-date", behaviour_date]
    for pair in profile:
        argv += ["--profile", pair]
    print(f"data dir: {data_dir.resolve()} (kept across restarts); Ctrl-C stops", flush=True)
    try:
        return reference_main(argv)
    except KeyboardInterrupt:
        return 0


def _file_targets(path: Path) -> dict[str, tuple[list[str], str]]:
    """name -> (surfaces, status) of a targets file."""
    listed: dict[str, tuple[list[str], str]] = {}
    for name, body in targets.read_targets_file(path).items():
        try:
            targets.resolve(name, body)
            status = str(path)
        except targets.TargetError as exc:
            status = f"{path}; not usable: {exc}"
        listed[name] = (sorted(body), status)
    return listed


def list_targets(targets_file: str | None) -> int:
    """Print the built-in reference and every target of the targets file with its surfaces."""
    path = Path(targets_file or targets.DEFAULT_TARGETS_FILE)
    rows: dict[str, tuple[list[str], str]] = {
        "reference": (list(REFERENCE_SURFACES), "built in (launched by the suite)"),
    }
    if targets_file or path.exists():
        if not path.is_file():
            print(f"error: targets file {path} not found", file=sys.stderr)
            return 2
        try:
            rows.update(_file_targets(path))
        except Exception as exc:  # TargetError or TOMLDecodeError: both name the problem
            print(f"error: {exc}", file=sys.stderr)
            return 2
    width = max(len(n) for n in rows) + 2
    for name, (surfaces, source) in rows.items():
        print(f"{name.ljust(width)}{', '.join(surfaces) or '(no surfaces)'}   [{source}]")
    return 0


def load_all(paths: list[Path], per_rule: bool = False) -> list[dict[str, Any]] | None:
    """Every results file, or None after printing why one cannot be read.

    `per_rule`: the caller walks every rule and case, so a file whose rules or cases are
    malformed (`shape_problem`) is refused here rather than crashing there.
    """
    docs = []
    for path in paths:
        try:
            doc = load_results(path)
        except ResultsError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return None
        problem = shape_problem(doc) if per_rule else None
        if problem:
            print(f"error: {path}: not a usable results file ({problem})", file=sys.stderr)
            return None
        docs.append(doc)
    return docs


def report(
    paths: list[Path],
    out: Path | None,
    labels: list[str],
    spec_base: str | None,
    ledgers: Path | None = None,
) -> int:
    """One results file -> compliance report; several -> matrix of rules x targets."""
    from jinja2.exceptions import UndefinedError

    from conformance.report.load import schema_problems
    from conformance.report.render import render_matrix, render_report, write_html

    docs = load_all(paths)
    if docs is None:
        return 2
    if labels and len(labels) != len(docs):
        print(f"error: {len(labels)} --label for {len(docs)} results files", file=sys.stderr)
        return 2
    for path, doc in zip(paths, docs, strict=True):
        for problem in schema_problems(doc):
            print(f"warning: {path}: {problem}", file=sys.stderr)
    try:
        if len(docs) == 1:
            html = render_report(docs[0], spec_base, ledgers)
            target = out or paths[0].with_name("index.html")
        else:
            html = render_matrix(docs, labels or None, spec_base)
            target = out or Path("matrix.html")
    except (KeyError, TypeError, ValueError, AttributeError, UndefinedError) as exc:
        # a file the schema warnings above describe, too broken to render: say so, no trace
        names = ", ".join(str(p) for p in paths)
        print(f"error: {names}: cannot render this results file ({type(exc).__name__}: "
              f"{exc}); see the schema warnings above", file=sys.stderr)  # fmt: skip
        return 2
    print(write_html(html, target))
    return 0


def diff(old: Path, new: Path, fmt: str) -> int:
    """Print the run-to-run diff; exit 1 on a regression or a lost certificate, 0 otherwise,
    2 on unreadable input."""
    from conformance.report.diff import diff_results, format_markdown, format_text

    docs = load_all([old, new], per_rule=True)
    if docs is None:
        return 2
    change = diff_results(docs[0], docs[1])
    print(format_markdown(change) if fmt == "markdown" else format_text(change))
    return 1 if change.fails else 0
