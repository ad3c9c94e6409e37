"""The areas a mutation run's scores are summed under (bench/mutation/selection.yaml `areas`).

An area follows a function, not a folder: the lifecycle modules moved to services/lifecycle/
and mgmt/clock_admin.py and still count as `lifecycle` in the table, the merge and the
published figure; a module no glob names counts under its package in the reference.
"""

from __future__ import annotations

from pathlib import Path

from bench.mutation import plan, publish, report

LIFECYCLE = [
    "reference_impl/mgmt/clock_admin.py",
    "reference_impl/services/lifecycle/applier.py",
    "reference_impl/services/lifecycle/config.py",
]


def test_the_map_names_an_area_and_the_package_is_the_default() -> None:
    cfg = plan.Config(areas=[("reference_impl/x/special.py", "fn"), ("reference_impl/y/*", "fn")])
    assert cfg.area_of("reference_impl/x/special.py") == "fn"
    assert cfg.area_of("reference_impl/y/a.py") == "fn"
    assert cfg.area_of("reference_impl/x/other.py") == "x"
    assert cfg.area_of("reference_impl/profile.py") == "core"


def test_the_lifecycle_modules_are_one_area_wherever_they_sit() -> None:
    for module in LIFECYCLE:
        assert report.area_of(module) == "lifecycle", module
    assert report.area_of("reference_impl/mgmt/app.py") == "mgmt"
    assert report.area_of("reference_impl/services/conditions.py") == "s3"
    assert report.area_of("reference_impl/wire/s3/http_date.py") == "s3"
    assert report.area_of("reference_impl/wire/mgmt/envelope.py") == "mgmt"
    assert report.area_of("reference_impl/services/lifecycle/config.py") == "lifecycle"


def test_every_area_glob_names_a_module_the_harness_mutates() -> None:
    """A glob left behind by a move would silently send its modules back to their package."""
    cfg = plan.load_config()
    mutated = plan.modules(cfg, [])
    for glob, area in cfg.areas:
        assert plan.modules(cfg, [glob]), f"areas: {glob} ({area}) matches no mutated module"
    assert {m for m in mutated if cfg.area_of(m) == "lifecycle"} >= set(LIFECYCLE)


def _row(module: str, mutants: int, killed: int) -> dict[str, object]:
    return {"module": module, "mutants": mutants, "killed": killed, "survived": mutants - killed}


def test_the_table_and_the_figure_sum_an_area_across_packages() -> None:
    rows = [_row(m, 4, 2) for m in LIFECYCLE] + [_row("reference_impl/mgmt/app.py", 2, 1)]
    areas = {a["area"]: a for a in publish.areas_from({"rows": rows})}
    assert (areas["lifecycle"]["mutants"], areas["lifecycle"]["killed"]) == (12, 6)
    assert (areas["mgmt"]["mutants"], areas["mgmt"]["killed"]) == (2, 1)
    summary = report.Summary(
        rows={str(r["module"]): report.Row(str(r["module"]), 4, 2, 2) for r in rows[:3]}
    )
    assert list(report.area_rows(summary)) == ["lifecycle"]
    assert "| lifecycle | 12 | 6 | 6 |" in report.area_table(summary)


def test_a_full_run_of_the_lifecycle_area_needs_its_modules_in_every_package() -> None:
    cfg = plan.load_config()
    made = {m: len(plan.mutants(cfg, m)) for m in LIFECYCLE}
    whole = [_row(m, n, n) for m, n in made.items()]
    assert publish.incomplete({"rows": whole}) == []
    gaps = publish.incomplete({"rows": whole[1:]})
    assert gaps == [f"reference_impl/mgmt/clock_admin.py: 0 of {made[LIFECYCLE[0]]} mutants"]


def test_a_selection_file_without_areas_takes_selection_yaml_s(tmp_path: Path) -> None:
    own = tmp_path / "selection.yaml"
    own.write_text("modules:\n  - glob: reference_impl/mgmt/*.py\n    area: [logs]\n", "utf-8")
    assert plan.load_config(own).area_of(LIFECYCLE[0]) == "lifecycle"
