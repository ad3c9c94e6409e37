"""The published suite-sensitivity figure is of today's reference: each area names the sha256
of every module it was measured on (bench.mutation.publish takes them from the run's results),
and those must be the bytes of the reference now. A module changed after its area was measured
(round 8's 304 fix in services/object_reads.py went a session unnoticed, while the figure's
scope said "bytes unchanged since") fails here until it is run again and published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.mutation import plan, publish
from bench.mutation.report import area_of
from bench.mutation.verdict import module_sha256


def _todays_modules() -> dict[str, dict[str, str]]:
    """Per area, every module the harness mutates today with the sha256 of its bytes (one it
    makes no mutant of, such as an empty __init__.py, is in no figure)."""
    cfg = plan.load_config()
    found: dict[str, dict[str, str]] = {}
    for module in plan.modules(cfg, []):
        if not plan.mutants(cfg, module):
            continue
        sha = module_sha256((plan.ROOT / module).read_bytes())
        found.setdefault(area_of(module), {})[module] = sha
    return found


def differences(doc: dict[str, object], today: dict[str, dict[str, str]]) -> list[str]:
    """What keeps each published area from being a figure of `today`'s modules."""
    problems = []
    for area in doc["areas"]:  # type: ignore[attr-defined]
        name, commit = area["area"], area.get("commit")
        measured: dict[str, str] = area.get("modules") or {}
        if not measured:
            problems.append(f"{name}: the figure records no module bytes")
            continue
        current = today.get(name, {})
        for module in sorted(set(current) | set(measured)):
            if module not in measured:
                problems.append(f"{name}: {module} was never measured (added after {commit})")
            elif module not in current:
                problems.append(f"{name}: {module} was measured but is no longer mutated")
            elif measured[module] != current[module]:
                problems.append(f"{name}: {module} changed after {commit}: run it again")
    for name in sorted(set(today) - {a["area"] for a in doc["areas"]}):  # type: ignore[attr-defined]
        problems.append(f"{name}: an area of the reference without a published figure")
    return problems


def test_every_published_area_is_a_figure_of_todays_reference() -> None:
    doc = json.loads(publish.TARGET.read_text("utf-8"))
    problems = differences(doc, _todays_modules())
    assert not problems, "\n".join(problems)


def test_a_changed_added_or_unrecorded_module_is_named() -> None:
    today = {"s3": {"a.py": "1", "b.py": "2", "new.py": "3"}, "edge": {"e.py": "4"}}
    doc = {"areas": [
        {"area": "s3", "commit": "c0ffee1", "modules": {"a.py": "1", "b.py": "9", "gone.py": "5"}},
        {"area": "edge", "commit": "c0ffee1"},
    ]}  # fmt: skip
    assert differences(doc, today) == [
        "s3: b.py changed after c0ffee1: run it again",
        "s3: gone.py was measured but is no longer mutated",
        "s3: new.py was never measured (added after c0ffee1)",
        "edge: the figure records no module bytes",
    ]


def test_publish_records_each_modules_bytes_and_refuses_a_full_run_without(
    tmp_path: Path,
) -> None:
    row = {"module": "reference_impl/edge/delivery.py", "mutants": 1, "killed": 1}
    doc = {"rows": [row], "module_sha256": {"reference_impl/edge/delivery.py": "ab12"}}
    (area,) = publish.areas_from(doc)
    assert area["modules"] == {"reference_impl/edge/delivery.py": "ab12"}
    assert publish.unhashed([area]) == []
    (area,) = publish.areas_from({"rows": [row]})  # an older harness's results
    assert publish.unhashed([area]) == ["reference_impl/edge/delivery.py"]


@pytest.mark.parametrize("scope", ["sample: 1 a module"])
def test_a_sample_without_recorded_bytes_is_still_published(tmp_path: Path, scope: str) -> None:
    """Only a full run must name its bytes (a sample is never read as the whole)."""
    rows = [{"module": "reference_impl/edge/delivery.py", "mutants": 1, "killed": 1}]
    (tmp_path / "results.json").write_text(json.dumps({"rows": rows}), "utf-8")
    target = tmp_path / "s.json"
    assert publish.main([str(tmp_path), "--scope", scope, "--to", str(target)]) == 0
