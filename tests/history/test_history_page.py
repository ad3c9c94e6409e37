"""The history page from a small synthetic history: regression start with the versions on each
side, a flaky rule told apart from a regression, score curve per area, interop view; the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from history_helpers import night_doc

from conformance.cli import main
from conformance.history.analysis import History
from conformance.history.page import load_history, render_history
from conformance.history.store import Store

REGRESSED = "storage.put-object.round-trip"  # FAIL from night 5, when the target changed
FLIPPING = "gateway.jsonrpc.id-echo"  # FAIL/PASS/FAIL/PASS on nights 5-8, same versions
BROKEN_QUIETLY = "logs.rulesets.list"  # FAIL from night 7, no version changed
FLIPS = {5: "FAIL", 7: "FAIL"}


def nights() -> list[tuple[str, str, dict[str, str]]]:
    out = []
    for i in range(1, 9):
        statuses = {}
        if i >= 5:
            statuses[REGRESSED] = "FAIL"
        if i in FLIPS:
            statuses[FLIPPING] = FLIPS[i]
        if i >= 7:
            statuses[BROKEN_QUIETLY] = "ERROR"
        out.append((f"2026-11-0{i}", "edge 1" if i < 5 else "edge 2", statuses))
    return out


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "h.sqlite")
    for night, version, statuses in nights():
        store.record(night_doc("edge", night, statuses), target_version=version)
    store.record(night_doc("other", "2026-11-08", {FLIPPING: "FAIL"}))
    return store


def test_regression_start_and_versions_on_each_side(store: Store) -> None:
    hist = load_history(store, "edge")
    assert [n.night for n in hist.nights] == [n for n, _, _ in nights()]
    failing = {r.rule_id: r for r in hist.failing}
    assert set(failing) == {REGRESSED, BROKEN_QUIETLY}
    regressed = failing[REGRESSED]
    assert regressed.failing_since == 4 and not regressed.flaky
    before, since = hist.nights[3], hist.nights[4]
    assert (before.target_version, since.target_version) == ("edge 1", "edge 2")
    assert failing[BROKEN_QUIETLY].failing_since == 6 and not failing[BROKEN_QUIETLY].flaky
    assert hist.changes == [4]


def test_flips_without_a_version_change_are_flaky(store: Store) -> None:
    hist = load_history(store, "edge")
    (flaky,) = hist.flaky
    assert flaky.rule_id == FLIPPING and flaky.flips_unexplained == 3
    assert flaky.latest == "PASS"


def test_flaky_status_recorded_by_a_rerun_is_flaky_and_not_a_pass(tmp_path: Path) -> None:
    with Store(tmp_path / "h.sqlite") as store:
        store.record(night_doc("edge", "2026-11-01"))
        store.record(night_doc("edge", "2026-11-02", {FLIPPING: "FLAKY"}))
        hist = load_history(store, "edge")
    assert [r.rule_id for r in hist.flaky] == [FLIPPING]
    assert [r.rule_id for r in hist.failing] == [FLIPPING]
    assert hist.areas["gateway"][1] is not None and hist.areas["gateway"][1] < 1.0


def test_score_curve_per_area(store: Store) -> None:
    hist = load_history(store, "edge")
    storage, logs = hist.areas["storage"], hist.areas["logs"]
    assert storage[:4] == [1.0] * 4 and all(s is not None and s < 1.0 for s in storage[4:])
    assert logs[:6] == [1.0] * 6 and logs[6] is not None and logs[6] < 1.0


def test_interop_view_has_the_latest_run_of_each_target(store: Store) -> None:
    hist = load_history(store, "edge")
    assert hist.interop_targets == ["edge", "other"]
    rows = dict(hist.interop)
    assert rows[FLIPPING] == ["PASS", "FAIL"]
    assert rows[REGRESSED] == ["FAIL", "PASS"]
    assert rows[BROKEN_QUIETLY] == ["ERROR", "PASS"]
    first = {rid for rid, _ in hist.interop[:3]}
    assert first == {FLIPPING, REGRESSED, BROKEN_QUIETLY}  # a failure of any target comes first


def _rows(html: str, css_class: str) -> list[str]:
    return re.findall(rf'<tr class="{css_class}" data-rule="([^"]+)"', html)


def test_page_shows_it_all_in_one_file(store: Store) -> None:
    hist: History = load_history(store, "edge")
    html = render_history(hist)
    assert sorted(_rows(html, "failing-rule")) == sorted([REGRESSED, BROKEN_QUIETLY])
    assert _rows(html, "flaky-rule") == [FLIPPING]
    assert html.count('class="area-line"') == 3  # one score line per area
    assert "edge 1<br>edge 2 <b>changed</b>" in html  # the regression's edge
    assert "<script" not in html and "http://" not in html.split("<body>")[1].split("<footer")[0]
    assert re.search(
        r'<td class="s-fail start" title="storage.put-object.round-trip 2026-11-05', html
    )


def test_cli_add_then_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "h.sqlite")
    paths = []
    for night, _version, statuses in nights()[:6]:
        path = tmp_path / f"{night}.json"
        path.write_text(json.dumps(night_doc("edge", night, statuses)))
        paths.append(str(path))
    assert main(["history", "add", *paths, "--store", store]) == 0
    assert main(["history", "add", paths[0], "--store", f"sqlite:///{store}"]) == 0
    assert "already recorded" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"run": {"run_id": "x"}}))
    assert main(["history", "add", str(bad), "--store", store]) == 2
    assert "not a valid results file" in capsys.readouterr().err
    out = tmp_path / "history.html"
    assert main(["history", "show", "--target", "edge", "--store", store, "-o", str(out)]) == 0
    assert _rows(out.read_text(), "failing-rule") == [REGRESSED]
    assert main(["history", "show", "--target", "nobody", "--store", store, "-o", str(out)]) == 1
    assert "no runs of target 'nobody'" in capsys.readouterr().err
    missing = tmp_path / "none.sqlite"
    assert main(["history", "show", "--target", "edge", "--store", str(missing)]) == 1
    assert "no results store at" in capsys.readouterr().err and not missing.exists()


def test_as_of_filter_keeps_runs_of_one_date(store: Store) -> None:
    current = night_doc("edge", "2026-11-09", {BROKEN_QUIETLY: "FAIL"})
    current["run"]["as_of"] = "2026-11-09"
    store.record(current)
    fixed = night_doc("edge", "2026-11-01")["run"]["as_of"]
    assert [n.night for n in load_history(store, "edge", "current").nights] == ["2026-11-09"]
    assert len(load_history(store, "edge", fixed).nights) == 8
    with pytest.raises(LookupError, match="at as-of 1999-01-01"):
        load_history(store, "edge", "1999-01-01")


def test_run_records_its_results_at_the_end(tmp_path: Path) -> None:
    """`conformance run --history URL`: the controller records the results file it read."""
    from conformance.cli_run import _record_history

    store = str(tmp_path / "h.sqlite")
    doc = night_doc("edge", "2026-11-10", {REGRESSED: "FAIL"})
    assert _record_history(store, doc, 1) == 1  # the run's own verdict is kept
    with Store(store) as opened:
        assert [r["run_id"] for r in opened.run_rows("edge")] == [doc["run"]["run_id"]]
    unreachable = "postgresql://nobody@127.0.0.1:1/none"
    assert _record_history(unreachable, doc, 0) == 2  # a store that cannot record fails the run


def test_run_takes_history_option() -> None:
    from conformance.cli import build_parser, run_options

    ns = build_parser().parse_args(["run", "--history", "sqlite:///h.db"])
    assert run_options(ns, []).history == "sqlite:///h.db"
