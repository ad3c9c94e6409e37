"""Commands that turn results files into other files: `merge` and `expectations update`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from conformance import atomic_file
from conformance.cli_commands import load_all
from conformance.results import verdict


def _write_json(path: Path, document: dict[str, Any]) -> None:
    atomic_file.write_text(path, json.dumps(document, indent=2) + "\n")


def merge(paths: list[Path], out: Path, matrix: bool, run_id: str | None) -> int:
    """Merge shards of one run into OUT; with --matrix, each (target, date) into OUT/."""
    from conformance import results
    from conformance.report import merge as m

    docs = load_all(paths)
    if docs is None:
        return 2
    names = [str(p) for p in paths]
    groups = m.group(docs)
    if len(groups) > 1 and not matrix:
        print(f"error: {m.refuse_mixed(groups, names)}", file=sys.stderr)
        return 2
    written: list[Path] = []
    for key, indexes in groups.items():
        shard_docs = [docs[i] for i in indexes]
        try:
            merged = m.merge_run(shard_docs, [names[i] for i in indexes], run_id)
            results.validate(merged)
        except m.MergeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except Exception as exc:  # jsonschema.ValidationError: a shard was not valid results
            print(f"error: merged results are not valid: {exc}", file=sys.stderr)
            return 2
        dupes = m.duplicate_count(shard_docs)
        if dupes:
            print(f"warning: {key[0]} @ {key[1]}: {dupes} case(s) in several files; "
                  "kept the worst status of each", file=sys.stderr)  # fmt: skip
        path = out / m.matrix_file_name(key) if matrix else out
        _write_json(path, merged)
        written.append(path)
        cases, rules = len(merged["cases"]), len(merged["rules"])
        print(f"{path}: {key[0]} @ {key[1]}, {len(indexes)} file(s), {cases} cases, "
              f"{rules} rules, verdict: {verdict(merged)}")  # fmt: skip
    if matrix:
        print(f"matrix: conformance report {' '.join(str(p) for p in written)}")
    return 0


def expectations_update(results_path: Path, out: Path | None, must: bool = False) -> int:
    """Write expectations/<target>.yaml from a run: failing rules in, fixed rules out; a new
    failing MUST rule only with --must (exit 1 when one was left out)."""
    from conformance.model import expectations as core

    docs = load_all([results_path], per_rule=True)
    if docs is None:
        return 2
    doc = docs[0]
    target = str(doc["run"].get("target"))
    path = out or core.default_path(target)
    try:
        existing = core.load(path) if path.exists() else {}
    except core.ExpectationsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    change = core.update(existing, doc, must=must)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(core.dump(change.expectations, target), encoding="utf-8")
    print(f"{path}: {len(change.expectations)} expected failure(s) of target {target!r}")
    for label, ids in (("added", change.added), ("removed (now passing)", change.removed)):
        for rule_id in ids:
            print(f"  {label}: {rule_id}")
    if change.added:
        print("add a tracking `link` to each new entry", file=sys.stderr)
    for rule_id in change.held:
        print(f"  kept (reads fixed, but the run had problems; not all tests ran): {rule_id}",
              file=sys.stderr)  # fmt: skip
    for rule_id in change.must_left_out:
        print(f"  not added (MUST rule; accept its failure as known with --must): {rule_id}",
              file=sys.stderr)  # fmt: skip
    return 1 if change.must_left_out else 0


def expand_results(paths: list[Path]) -> list[Path]:
    """A directory stands for the results files in it (`conformance merge --matrix` output)."""
    expanded: list[Path] = []
    for path in paths:
        expanded.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return expanded
