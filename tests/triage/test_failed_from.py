"""`conformance run --failed-from RESULTS`: exactly the failing rules, as the run was made."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from conformance.cli import build_parser, run_options
from conformance.cli_run import build_pytest_argv
from conformance.failed_from import failed_rules
from conformance.plugin.collection import selected
from conformance.report.render import render_report

RESULTS = Path(__file__).resolve().parents[2] / "fixtures" / "results"


class _Rule:
    def __init__(self, rule_id: str) -> None:
        self.id, self.area = rule_id, rule_id.split(".")[0]


def _earlier(tmp_path: Path) -> Path:
    doc: dict[str, Any] = json.loads((RESULTS / "mixed.json").read_text("utf-8"))
    doc["run"]["target"] = "moto"
    doc["run"]["flags"] = {
        "rule": [], "area": ["storage", "gateway"], "reference_profile": {"k": "v"},
        "targets_file": "/somewhere/moto.toml", "compat_date": "2024-01-01",
        "compat_flag": ["f1"], "expectations": None, "allow_shared_zone": False,
    }  # fmt: skip
    doc["rules"][0]["status"] = "FLAKY"
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps(doc), "utf-8")
    return path


def _options(argv: list[str]) -> Any:
    return run_options(build_parser().parse_args(["run", *argv]), [])


def test_only_failed_errored_and_flaky_rules_by_exact_id(tmp_path: Path) -> None:
    path = _earlier(tmp_path)
    doc = json.loads(path.read_text("utf-8"))
    wanted = {r["id"] for r in doc["rules"] if r["status"] in ("FAIL", "ERROR", "FLAKY")}
    assert set(failed_rules(doc)) == wanted and wanted
    opts = _options(["--failed-from", str(path)])
    assert sorted(opts.rules) == sorted(f"{rule_id}$" for rule_id in wanted)
    argv = build_pytest_argv(opts, tmp_path, "r")
    assert argv.count("--rule") == len(wanted)


def test_target_date_areas_and_options_come_from_the_run_unless_given(tmp_path: Path) -> None:
    path = _earlier(tmp_path)
    opts = _options(["--failed-from", str(path)])
    assert (opts.target, opts.as_of, opts.areas) == ("moto", "2024-11-21", ["storage", "gateway"])
    assert opts.targets_file == "/somewhere/moto.toml" and opts.reference_profile == ["k=v"]
    assert (opts.compat_date, opts.compat_flags) == ("2024-01-01", ["f1"])
    mine = _options(["--failed-from", str(path), "--target", "other", "--as-of", "2023-02-02",
                     "--area", "storage", "--targets-file", "t.toml"])  # fmt: skip
    assert (mine.target, mine.as_of, mine.areas, mine.targets_file) == (
        "other", "2023-02-02", ["storage"], "t.toml")  # fmt: skip


def test_an_exact_rule_id_does_not_select_the_ids_it_prefixes() -> None:
    rules = [_Rule("storage.get-object.if-match"), _Rule("storage.get-object.if-match-list")]
    assert [r.id for r in selected(rules, ["storage.get-object.if-match$"], [])] == [
        "storage.get-object.if-match"
    ]
    assert len(selected(rules, ["storage.get-object.if-match"], [])) == 2


def test_the_new_report_shows_old_and_new_status(tmp_path: Path) -> None:
    doc = json.loads((RESULTS / "mixed.json").read_text("utf-8"))
    new = copy.deepcopy(doc)
    rule_id = next(r["id"] for r in doc["rules"] if r["status"] == "FAIL")
    for rule in new["rules"]:
        if rule["id"] == rule_id:
            rule["status"] = "PASS"
    new["run"]["rerun_of"] = {"run_id": "old-run", "statuses": {rule_id: "FAIL"}}
    html = render_report(new)
    assert "Re-run of old-run" in html
    rerun = html.split('id="rerun"')[1].split("</section>")[0]
    assert rule_id in rerun and "FAIL</span> → <span" in rerun and "s-pass" in rerun


def test_nothing_failed_means_nothing_to_rerun(tmp_path: Path, capsys: Any) -> None:
    from conformance.cli import main

    assert main(["run", "--failed-from", str(RESULTS / "all-pass.json")]) == 0
    assert "nothing to re-run" in capsys.readouterr().out
