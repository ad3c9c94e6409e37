"""The suite-sensitivity figure: published by bench.mutation.publish, shown beside the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_helpers import load

from bench.mutation import publish
from conformance.report import render, sensitivity

ROWS = [
    {"module": "reference_impl/s3/listing.py", "mutants": 4, "killed": 3, "survived": 0,
     "equivalent": 1, "out_of_spec": 0, "timeouts": 0, "start_failures": 0,
     "collection_errors": 0, "other_exits": 0, "harness": 0},
    {"module": "reference_impl/s3/buckets.py", "mutants": 2, "killed": 1, "survived": 1,
     "equivalent": 0, "out_of_spec": 0, "timeouts": 0, "start_failures": 0,
     "collection_errors": 0, "other_exits": 0, "harness": 0},
    {"module": "reference_impl/profile.py", "mutants": 2, "killed": 1, "survived": 0,
     "equivalent": 0, "out_of_spec": 0, "timeouts": 1, "start_failures": 0,
     "collection_errors": 0, "other_exits": 0, "harness": 0},
]  # fmt: skip


def test_areas_sum_their_modules_and_score_only_what_is_not_excused() -> None:
    areas = {a["area"]: a for a in publish.areas_from({"rows": ROWS})}
    assert set(areas) == {"s3", "core"}
    assert (areas["s3"]["mutants"], areas["s3"]["killed"], areas["s3"]["equivalent"]) == (6, 4, 1)
    assert areas["s3"]["score"] == 80.0  # 4 killed of 6 - 1 equivalent
    # a timeout is not a kill: it counts against the score
    assert areas["core"]["score"] == 50.0


def test_the_published_score_is_rounded_down_as_the_report_prints_it() -> None:
    """122 of 147 is 82.99%: published 82.9, as the run's console prints 82%; never 83.0."""
    row = dict(ROWS[0], module="reference_impl/jsonbody.py", mutants=147, killed=122, survived=25)
    row["equivalent"] = 0
    (area,) = publish.areas_from({"rows": [row]})
    assert area["score"] == 82.9


def test_publish_writes_a_figure_the_report_reads(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({"rows": ROWS}), "utf-8")
    target = tmp_path / "sensitivity.json"
    rc = publish.main(
        [str(tmp_path), "--scope", "sample: 1 mutant per module", "--commit", "abc1234",
         "--measured", "2026-11-26", "--to", str(target)]
    )  # fmt: skip
    assert rc == 0
    found = sensitivity.parse(json.loads(target.read_text("utf-8")))
    assert not found.full_run and found.mutants == 8
    assert found.phrase() == (
        "sample: 1 mutant per module, not a full run (8 mutants), measured 2026-11-26 at "
        "abc1234: core 1 of 2 killed, 1 not judged (50%); "
        "s3 4 of 5 killed, 1 listed (1 equivalent) (80%) "
        "(a not-judged mutant counts as a survivor in the %)"
    )
    core = next(a for a in found.areas if a.area == "core")
    assert core.not_judged == 1


def test_publish_refuses_a_run_without_mutants(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({"rows": []}), "utf-8")
    assert publish.main([str(tmp_path), "--scope", "full", "--to", str(tmp_path / "s")]) == 1
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    "change",
    [{"killed": 4, "equivalent": 2},  # 6 counted of 4 mutants (4 killed of 2 scored)
     {"killed": 4, "equivalent": 1, "survived": -1}],  # a negative column
    ids=["more-counted-than-mutants", "negative"],
)  # fmt: skip
def test_publish_refuses_counts_no_run_gives(tmp_path: Path, change: dict[str, int]) -> None:
    """A hand-edited or half-merged results.json is not published (a review's finding)."""
    row = dict(ROWS[0], **change)
    (tmp_path / "results.json").write_text(json.dumps({"rows": [row]}), "utf-8")
    target = tmp_path / "s.json"
    assert publish.main([str(tmp_path), "--scope", "sample", "--to", str(target)]) == 1
    assert not target.exists()


def test_the_report_and_the_terminal_name_the_figure_or_its_absence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    figure = sensitivity.parse(publish.figure({"rows": ROWS}, "full run", "abc1234", "2026-11-26"))
    monkeypatch.setattr(sensitivity, "published", lambda: figure)
    monkeypatch.setattr(render, "published_sensitivity", lambda: figure)
    assert sensitivity.terminal_lines()[1:] == [
        "  core 1 of 2 killed, 1 not judged (50%); full run, 2026-11-26 at abc1234",
        "  s3 4 of 5 killed, 1 listed (1 equivalent) (80%); full run, 2026-11-26 at abc1234",
        "  (a not-judged mutant counts as a survivor in the %)",
    ]
    doc = load("all-pass")
    html = render.render_report(doc)
    assert 'id="sensitivity"' in html
    assert "<td>core 1 of 2 killed, 1 not judged (50%)</td>" in html
    assert "<td>s3 4 of 5 killed, 1 listed (1 equivalent) (80%)</td>" in html
    assert html.count("<td>full run, 2026-11-26 at abc1234</td>") == 2
    assert "core, s3: full run (8 mutants), measured 2026-11-26 at abc1234" in html
    monkeypatch.setattr(sensitivity, "published", lambda: None)
    monkeypatch.setattr(render, "published_sensitivity", lambda: None)
    assert "no mutation run published" in sensitivity.terminal_lines()[0]
    assert "no mutation run published" in render.render_report(doc)


def _run_dir(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.json").write_text(json.dumps({"rows": rows}), "utf-8")
    return out


def test_a_full_run_of_one_area_is_shown_beside_the_sample_of_the_others(tmp_path: Path) -> None:
    target = tmp_path / "sensitivity.json"
    sample = _run_dir(tmp_path, ROWS)
    common = ["--to", str(target), "--commit"]
    assert publish.main([str(sample), "--scope", "sample: 1 a module", *common, "aaa1111",
                         "--measured", "2026-11-26"]) == 0  # fmt: skip
    module = "reference_impl/edge/delivery.py"
    full_rows = [
        {"module": m, "mutants": len(publish.plan.mutants(publish.plan.load_config(), m)),
         "killed": 1, "not_executed": 1 if m == module else 0}
        for m in publish.plan.modules(publish.plan.load_config(), ["reference_impl/edge/"])
    ]  # fmt: skip
    full = tmp_path / "full"
    full.mkdir()
    hashes = {str(row["module"]): "ab12" for row in full_rows}  # the run's recorded bytes
    doc = {"rows": full_rows, "module_sha256": hashes}
    (full / "results.json").write_text(json.dumps(doc), "utf-8")
    assert publish.main([str(full), "--scope", "full run", "--merge", *common, "bbb2222",
                         "--measured", "2026-11-27"]) == 0  # fmt: skip
    found = sensitivity.parse(json.loads(target.read_text("utf-8")))
    assert [a.area for a in found.areas] == ["core", "edge", "s3"]
    edge = next(a for a in found.areas if a.area == "edge")
    total = sum(int(r["mutants"]) for r in full_rows)
    assert edge.source == sensitivity.Measured("2026-11-27", "bbb2222", "full run", True)
    assert found.phrase().startswith(
        f"full run ({total} mutants), measured 2026-11-27 at bbb2222: edge "
        f"{len(full_rows)} of {total} killed (1 survivor on lines no test executes) ("
    )
    assert (
        " | sample: 1 a module, not a full run (8 mutants), measured 2026-11-26 at aaa1111: "
        "core 1 of 2 killed, 1 not judged (50%); s3 4 of 5 killed, 1 listed (1 equivalent) (80%)"
        in found.phrase()
    )


def test_a_run_missing_mutants_of_its_area_is_not_published_as_full(tmp_path: Path) -> None:
    rows = [{"module": "reference_impl/edge/delivery.py", "mutants": 1, "killed": 1}]
    target = tmp_path / "s.json"
    out = _run_dir(tmp_path, rows)
    assert publish.main([str(out), "--scope", "full run", "--to", str(target)]) == 1
    assert not target.exists()
    assert any("edge/records.py: 0 of" in gap for gap in publish.incomplete({"rows": rows}))


def test_survivors_no_test_executes_are_named_beside_the_kills_not_the_listed() -> None:
    """The not-executed survivors are among the scored mutants (the `5 of 8`), never among the
    ledger's listed ones: their count follows the kills, before the listed count's own
    parenthesis, where it read as a part of it (`2 listed (1 equivalent, 1 out-of-spec)
    (2 survivors on lines no test executes)`)."""
    area = sensitivity.AreaScore(
        "x", mutants=10, killed=5, equivalent=1, out_of_spec=1, not_judged=0, score=62.5,
        not_executed=2,
    )  # fmt: skip
    assert area.phrase() == (
        "x 5 of 8 killed (2 survivors on lines no test executes), "
        "2 listed (1 equivalent, 1 out-of-spec) (62%)"
    )


@pytest.mark.parametrize(
    ("scope", "full", "kind"),
    [
        ("full run: every mutant", True, "full run"),
        ("partial run: 9 of 14 modules whole", False, "partial run, not a full run"),
        ("sample: 1 mutant per module", False, "sample, not a full run"),
    ],
)
def test_the_terminal_tells_a_partial_run_from_a_sample(scope: str, full: bool, kind: str) -> None:
    """A partial run (whole modules, not the whole area) is not called a sample."""
    measured = sensitivity.Measured("2026-11-28", "abc1234", scope, full)
    assert measured.short() == f"{kind}, 2026-11-28 at abc1234"
