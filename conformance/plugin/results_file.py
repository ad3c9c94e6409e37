"""results.json: run info, case records and the roll-up, validated, written atomically."""

from __future__ import annotations

import datetime as dt
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from conformance import results
from conformance.plugin.collection import selected
from conformance.plugin.options import Options
from conformance.report import shadowed


def suite_version() -> str:
    try:
        return metadata.version("edge-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def git_sha() -> str | None:
    """Commit of the suite's checkout, when it runs from one."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
            text=True, timeout=5, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def default_run_id(started: str, run_prefix: str) -> str:
    return started[:19].replace("-", "").replace(":", "") + "-" + run_prefix.removeprefix("ec-")


def run_flags(options: Options) -> dict[str, Any]:
    """The selection and options of the run: `conformance run --failed-from` repeats them."""
    return {
        "rule": list(options.rules), "area": list(options.areas),
        "reference_profile": dict(options.reference_profile),
        "targets_file": str(options.targets_file.resolve()) if options.targets_file else None,
        "compat_date": options.compat_date.isoformat() if options.compat_date else None,
        "compat_flag": list(options.compat_flags),
        "expectations": str(options.expectations.resolve()) if options.expectations else None,
        "allow_shared_zone": options.allow_shared_zone,
        "rerun": options.rerun, "pytest_args": list(options.plugin_args),
    }  # fmt: skip


def build_document(
    options: Options,
    catalog: Any,
    cases: list[dict[str, Any]],
    *,
    run_id: str,
    started: str,
    finished: str,
    problems: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The whole results.json; rules are those of the --rule/--area selection. Any run
    problem (run_problems.py) makes the verdict NOT CERTIFIED, whatever the rules say."""
    rules = selected(list(catalog.rules.values()), options.rules, options.areas)
    rule_ids = {rule.id for rule in rules}
    kept = [case for case in cases if case["rule_id"] in rule_ids]
    rule_records, summary = results.roll_up(rules, kept, options.as_of, options.target)
    # MUST rules a failing SHOULD check stopped: the file is judged as `conformance run` and
    # `merge` judge it, so `conformance report` of a plain pytest run reads the same verdict
    stopped = shadowed.shadowed_must_rules({"rules": rule_records, "cases": kept})
    problems = [*(problems or []), *([shadowed.problem(stopped)] if stopped else [])]
    if problems:
        summary["certified"] = False
    document: dict[str, Any] = {
        "schema_version": results.SCHEMA_VERSION,
        "run": {
            "run_id": run_id, "target": options.target, "as_of": options.as_of.isoformat(),
            "suite_version": suite_version(), "catalog_hash": str(catalog.hash),
            "git_sha": git_sha(), "started": started, "finished": finished,
            "flags": run_flags(options),
        },
        "cases": kept,
        "rules": rule_records,
        "summary": summary,
    }  # fmt: skip
    if problems:
        document["run"]["problems"] = problems
    return document


def write(path: Path, document: dict[str, Any]) -> None:
    """Validate against the schema, then write atomically (results.write_results)."""
    results.write_results(path, document)
