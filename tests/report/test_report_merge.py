"""`conformance merge`: shards of one run become that run again; other runs stay apart."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from report_helpers import RESULTS, as_run, shard_of

from conformance import results
from conformance.cli import main
from conformance.report.merge import MergeError, merge_run


def _shards(doc: dict[str, Any], parts: int) -> list[dict[str, Any]]:
    shards = []
    for index in range(parts):
        shard = copy.deepcopy(doc)
        shard["cases"] = doc["cases"][index::parts]
        shards.append(shard)
    return shards


def _write(tmp_path: Path, docs: list[dict[str, Any]]) -> list[str]:
    paths = []
    for index, doc in enumerate(docs):
        path = tmp_path / f"shard{index}.json"
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    return paths


def test_shards_merge_back_into_the_run(tmp_path: Path, mixed: dict[str, Any]) -> None:
    paths = _write(tmp_path, _shards(mixed, 3))
    out = tmp_path / "merged.json"
    assert main(["merge", *paths, "-o", str(out)]) == 0
    merged = json.loads(out.read_text())
    results.validate(merged)
    key = ("rule_id", "nodeid", "case")
    assert sorted(tuple(c[k] for k in key) for c in merged["cases"]) == sorted(
        tuple(c[k] for k in key) for c in mixed["cases"]
    )
    statuses = {r["id"]: r["status"] for r in merged["rules"]}
    assert statuses == {r["id"]: r["status"] for r in mixed["rules"]}
    assert merged["summary"] == mixed["summary"]
    assert merged["run"]["target"] == "staging"
    assert merged["run"]["run_id"] == "merged-staging-2024-11-21"


def test_duplicate_case_keeps_the_worst(mixed: dict[str, Any]) -> None:
    shard = copy.deepcopy(mixed)
    case = next(c for c in shard["cases"] if c["status"] == "PASS")
    twin = copy.deepcopy(mixed)
    twin["cases"] = [dict(case, status="FAIL", message="flaky")]
    merged = merge_run([shard, twin], ["a", "b"])
    found = [c for c in merged["cases"] if (c["rule_id"], c["nodeid"], c["case"])
             == (case["rule_id"], case["nodeid"], case["case"])]  # fmt: skip
    assert [c["status"] for c in found] == ["FAIL"]
    assert {r["id"]: r["status"] for r in merged["rules"]}[case["rule_id"]] == "FAIL"


def test_different_catalogs_are_refused(mixed: dict[str, Any]) -> None:
    other = copy.deepcopy(mixed)
    other["run"]["catalog_hash"] = "sha256:other"
    with pytest.raises(MergeError, match="catalog_hash"):
        merge_run([mixed, other], ["a", "b"])


def test_different_targets_need_matrix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(RESULTS / "mixed.json"), str(RESULTS / "all-pass.json")]
    assert main(["merge", *files, "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "staging @ 2024-11-21" in err and "reference @ 2024-11-20" in err
    assert "--matrix" in err
    assert not (tmp_path / "m.json").exists()


def test_matrix_keeps_runs_apart_for_the_report(tmp_path: Path) -> None:
    files = [RESULTS / "mixed.json", RESULTS / "older.json", RESULTS / "all-pass.json"]
    out = tmp_path / "matrix"
    assert main(["merge", *map(str, files), "-o", str(out), "--matrix"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["reference_2024-11-20.json", "staging_2024-11-20.json",
                     "staging_2024-11-21.json"]  # fmt: skip
    page = tmp_path / "matrix.html"
    assert main(["report", str(out), "-o", str(page)]) == 0
    html = page.read_text()
    assert "staging @ 2024-11-21" in html and "reference" in html


def test_a_shards_run_problem_refuses_the_merged_verdict() -> None:
    """A shard that died mid-run was NOT CERTIFIED: merging it with a clean shard must not
    certify (the nightly merges shards before the report)."""
    clean = json.loads((RESULTS / "all-pass.json").read_text("utf-8"))
    died = copy.deepcopy(clean)
    problem = {"kind": "reference", "where": "reference", "message": "died", "rules": []}
    died["run"]["problems"] = [problem]
    died["summary"]["certified"] = False
    merged = merge_run([clean, died], ["a", "b"])
    assert merged["run"]["problems"] == [problem]
    assert merged["summary"]["certified"] is False
    assert results.verdict(merged) == results.NOT_CERTIFIED_VERDICT
    assert results.verdict(merge_run([clean, copy.deepcopy(clean)], ["a", "b"])) == "CERTIFIED"


@pytest.mark.parametrize("split", ["by-level", "not-applicable-apart"])
def test_the_merged_verdict_does_not_depend_on_the_sharding(split: str) -> None:
    """A SHOULD rule that fails, or a shard whose rules were all N/A, must not refuse the
    merged certificate when the unsharded run is certified (the shards' own exit statuses
    said 1, for the SHOULD failure or for checking nothing)."""
    whole = json.loads((RESULTS / "all-pass.json").read_text("utf-8"))
    should = next(
        r["id"] for r in whole["rules"] if r["level"] == "SHOULD" and r["status"] == "PASS"
    )
    for case in whole["cases"]:
        if case["rule_id"] == should:
            case["status"] = "FAIL"
    if split == "by-level":
        apart = {r["id"] for r in whole["rules"] if r["level"] != "MUST"}
    else:
        apart = {r["id"] for r in whole["rules"] if r["status"] == "N/A"}
    rest = {r["id"] for r in whole["rules"]} - apart
    unsharded = as_run(whole, label="shard")
    assert results.verdict(unsharded) == results.CERTIFIED_VERDICT
    shards = [as_run(shard_of(whole, part), label="shard") for part in (apart, rest)]
    merged = merge_run(shards, ["a", "b"])
    assert results.verdict(merged) == results.verdict(unsharded)
