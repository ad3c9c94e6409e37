"""`conformance run --failed-from RESULTS`: re-run exactly what failed, as it was run.

The earlier results file is the only input: its rules that FAILed, ERRORed or were FLAKY are
selected by exact id, and its target, as-of date, areas and options (`--rerun N`, and the
plugin options given after `--`, e.g. `--model-steps N`) are reused unless the command line
says otherwise. The new results file remembers each re-run rule's old status
(`run.rerun_of`), so its report shows old → new.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from conformance.cli_run import RunOptions
from conformance.model.run_options import OUTPUT_FLAGS
from conformance.results import RERUN

RERUN_STATUSES = RERUN
EXACT = "$"  # conformance.plugin.collection.EXACT: `--rule ID$` selects exactly ID


def failed_rules(doc: dict[str, Any]) -> dict[str, str]:
    """Rule id -> status of every rule the run judged FAIL, ERROR or FLAKY, by id."""
    found = {
        str(rule["id"]): str(rule["status"])
        for rule in doc.get("rules", [])
        if rule.get("status") in RERUN_STATUSES and rule.get("id")
    }
    return dict(sorted(found.items()))


def _given(ns: argparse.Namespace, name: str) -> bool:
    value = getattr(ns, name, None)
    return value not in (None, [], False)


def options_from(doc: dict[str, Any], opts: RunOptions, ns: argparse.Namespace) -> RunOptions:
    """`opts` with what the earlier run recorded filled in where the command line is silent."""
    run = doc.get("run") or {}
    flags = run.get("flags") or {}
    failed = failed_rules(doc)
    changes: dict[str, Any] = {"rules": [f"{rule_id}{EXACT}" for rule_id in failed]}
    if not _given(ns, "target"):
        changes["target"] = str(run.get("target") or opts.target)
    if not _given(ns, "as_of") and run.get("as_of"):
        changes["as_of"] = str(run["as_of"])
    if not _given(ns, "area"):
        changes["areas"] = list(flags.get("area") or [])
    if not _given(ns, "targets_file") and flags.get("targets_file"):
        changes["targets_file"] = str(flags["targets_file"])
    if not _given(ns, "reference_profile"):
        profile = flags.get("reference_profile") or {}
        changes["reference_profile"] = [f"{k}={v}" for k, v in profile.items()]
    if not _given(ns, "compat_date") and flags.get("compat_date"):
        changes["compat_date"] = str(flags["compat_date"])
    if not _given(ns, "compat_flag"):
        changes["compat_flags"] = list(flags.get("compat_flag") or [])
    if not _given(ns, "expectations") and flags.get("expectations"):
        changes["expectations"] = str(flags["expectations"])
    if not _given(ns, "allow_shared_zone") and flags.get("allow_shared_zone"):
        changes["allow_shared_zone"] = True
    if not _given(ns, "rerun") and flags.get("rerun"):
        changes["rerun"] = int(flags["rerun"])
    changes["pytest_args"] = _recorded_args(flags, opts.pytest_args) + list(opts.pytest_args)
    return replace(opts, **changes)


def _recorded_args(flags: dict[str, Any], given: list[str]) -> list[str]:
    """The earlier run's plugin options (`-- --model-steps N`) the new `--` does not repeat;
    never where it wrote (results files of older versions recorded `--results` there too)."""
    recorded = [str(a) for a in flags.get("pytest_args") or []]
    kept: list[str] = []
    for flag, value in zip(recorded[::2], recorded[1::2], strict=False):
        if flag in OUTPUT_FLAGS:
            continue
        if not any(arg == flag or arg.startswith(f"{flag}=") for arg in given):
            kept += [flag, value]
    return kept


def rerun_of(doc: dict[str, Any], path: Path) -> dict[str, Any]:
    """`run.rerun_of` of the new results: the earlier run and each re-run rule's status there."""
    run = doc.get("run") or {}
    return {"run_id": str(run.get("run_id") or path.stem), "results": str(path),
            "statuses": failed_rules(doc)}  # fmt: skip
