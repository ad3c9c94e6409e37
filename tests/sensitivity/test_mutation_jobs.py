"""`bench.mutation.run --jobs N`: the shares cover every mutant once, and each worker runs the
same options on its share, in its own tree, with its own --out (bench/mutation/jobs.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from cosmic_ray.work_db import WorkDB, use_db

from bench.mutation import jobs, merge


@pytest.mark.parametrize(("count", "total"), [(0, 2), (1, 2), (5, 2), (7, 3), (64, 4)])
def test_the_shares_split_the_mutants_contiguously_once_each(count: int, total: int) -> None:
    shares = [jobs.shard(count, f"{i}/{total}") for i in range(1, total + 1)]
    assert [i for share in shares for i in share] == list(range(count))
    assert max(map(len, shares)) - min(map(len, shares)) <= 1


def test_a_share_outside_one_to_n_is_refused() -> None:
    with pytest.raises(ValueError, match="1 <= I <= N"):
        jobs.shard(10, "3/2")


def test_a_worker_runs_the_same_options_on_its_share(tmp_path: Path) -> None:
    args = argparse.Namespace(
        modules=["reference_impl/s3/"], sample=None, seed=17, timeout=600.0,
        selection=Path("bench/mutation/selection.yaml"), line=[5], carry_killed=None,
        operator=["ExceptionReplacer"],
        retry_unjudged=True, run_unexecuted=False, whole_selection=False,
    )  # fmt: skip
    argv = jobs.worker_argv(args, 2, 3, tmp_path / "w2")
    assert argv[1:4] == ["-m", "bench.mutation.run", "reference_impl/s3/"]
    assert argv[argv.index("--selection") + 1] == str(Path.cwd() / "bench/mutation/selection.yaml")
    assert "--retry-unjudged" in argv and "--whole-selection" not in argv and "--sample" not in argv
    assert argv[argv.index("--line") + 1] == "5"
    assert argv[argv.index("--operator") + 1] == "ExceptionReplacer"
    assert argv[-4:] == ["--shard", "2/3", "--out", str(tmp_path / "w2")]


def test_the_merge_reads_baselines_not_the_records_beside_them(tmp_path: Path) -> None:
    run = tmp_path / "worker-1"
    run.mkdir()
    with use_db(str(run / "session.sqlite"), WorkDB.Mode.create):
        pass
    day = {"as_of": "d1", "exit": 0, "has_results": True, "statuses": {"r.a": "PASS"}}
    (run / "baseline-x.json").write_text(json.dumps({"d1": day}), "utf-8")
    (run / "baseline-x.unexecuted.json").write_text('{"unexecuted": {}}', "utf-8")
    (run / "baseline-x.contexts.json").write_text('{"days": [], "plans": [], "modules": {}}')
    assert merge.main([str(tmp_path / "out"), str(run)]) == 0
    doc = json.loads((tmp_path / "out" / "results.json").read_text("utf-8"))
    assert [b["selection"] for b in doc["baselines"]] == [["baseline-x.json"]]
