"""`conformance expectations update`: a run's failing rules in, fixed ones out, links kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from report_helpers import RESULTS

from conformance.cli import main
from conformance.model import expectations as core


def test_update_writes_failing_rules_and_keeps_links(
    tmp_path: Path, mixed: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    failing = {r["id"] for r in mixed["rules"] if r["status"] in ("FAIL", "ERROR", "XFAIL")}
    passing = next(r["id"] for r in mixed["rules"] if r["status"] == "PASS")
    keep = sorted(failing)[0]
    path = tmp_path / "expectations" / "staging.yaml"
    path.parent.mkdir()
    path.write_text(f"{keep}: {{link: 'https://t/1', reason: tracked}}\n{passing}: {{}}\n")
    assert main(["expectations", "update", str(RESULTS / "mixed.json"), "--must"]) == 0
    written = core.load(path)
    assert set(written) == failing  # the passing rule's entry is gone
    assert written[keep].link == "https://t/1" and written[keep].reason == "tracked"


def test_update_leaves_a_new_failing_must_rule_out_without_must(
    tmp_path: Path, mixed: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """MEDIUM: update added failing MUST rules, so the next run exited 0 on them unasked."""
    out = tmp_path / "x.yaml"
    assert main(["expectations", "update", str(RESULTS / "mixed.json"), "-o", str(out)]) == 1
    levels = {r["id"]: r["level"] for r in mixed["rules"]}
    written = core.load(out)
    assert written and all(levels[rule_id] != "MUST" for rule_id in written)
    assert "--must" in capsys.readouterr().err
    assert main(["expectations", "update", str(RESULTS / "mixed.json"), "-o", str(out),
                 "--must"]) == 0  # fmt: skip
    assert any(levels[rule_id] == "MUST" for rule_id in core.load(out))


def test_update_to_explicit_output(tmp_path: Path, all_pass: dict[str, Any]) -> None:
    out = tmp_path / "x.yaml"
    assert main(["expectations", "update", str(RESULTS / "all-pass.json"), "-o", str(out)]) == 0
    assert core.load(out) == {}


def test_report_shows_the_tracking_link_of_an_xfail(mixed: dict[str, Any]) -> None:
    from conformance.report.render import render_report

    case = mixed["cases"][0]
    case.update(status="XFAIL", message="expected FAIL: known", link="https://t/9")
    html = render_report(mixed, None)
    assert 'href="https://t/9"' in html
