"""NOT-CHECKED in the history (issue 23 item 5): PASS -> NOT-CHECKED is no regression and no
flip, never a pass in the score, shown with its own colour, and its evidence is kept."""

from __future__ import annotations

from pathlib import Path

from history_helpers import night_doc

from conformance.history.page import load_history, render_history
from conformance.history.store import Store

RULE = "storage.put-object.round-trip"
OTHER = "logs.rulesets.list"


def test_pass_to_not_checked_and_back_is_neither_failing_nor_flaky(tmp_path: Path) -> None:
    with Store(tmp_path / "h.sqlite") as store:
        for night, status in (("2026-11-01", None), ("2026-11-02", "NOT-CHECKED"),
                              ("2026-11-03", None), ("2026-11-04", "NOT-CHECKED")):  # fmt: skip
            store.record(night_doc("edge", night, {RULE: status} if status else {}))
        hist = load_history(store, "edge")
        rule = next(r for r in hist.rules if r.rule_id == RULE)
        assert rule.statuses == ["PASS", "NOT-CHECKED", "PASS", "NOT-CHECKED"]
        assert rule.flips_unexplained == 0 and not rule.flaky
        assert hist.failing == [] and rule.failing_since is None
        assert rule.changed  # listed among the rules whose status changed
        # the night it was not checked scores the area over the rules that were judged
        assert hist.areas["storage"] == [1.0, 1.0, 1.0, 1.0]
        html = render_history(hist)
        assert 'class="s-not-checked"' in html
        assert '<span class="badge s-not-checked">NOT-CHECKED</span>' in html  # legend
        (latest,) = [store.case_rows(r["id"]) for r in store.run_rows("edge")][-1:]
    case = next(c for c in latest if c["rule_id"] == RULE)
    assert case["status"] == "NOT-CHECKED" and case["evidence"] is not None


def test_a_failure_interrupted_by_a_not_checked_night_still_starts_where_it_started(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "h.sqlite") as store:
        for night, status in (("2026-11-01", "PASS"), ("2026-11-02", "FAIL"),
                              ("2026-11-03", "NOT-CHECKED"), ("2026-11-04", "FAIL")):  # fmt: skip
            store.record(night_doc("edge", night, {OTHER: status}))
        hist = load_history(store, "edge")
    (failing,) = hist.failing
    assert failing.rule_id == OTHER
    # FAIL, NOT-CHECKED, FAIL: the same failure, no flip on either side of the gap
    assert failing.flips_unexplained == 1 and not failing.flaky
