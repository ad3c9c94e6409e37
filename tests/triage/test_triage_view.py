"""The triage view and each rule's explanation, rendered from a recorded results file alone
(a moto run on the storage area), with and without the peer ledgers and the spec at hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.browser import chromium, needs_chromium

from conformance.report.render import render_report
from conformance.report.triage import finest, top_share, triage

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "fixtures" / "results" / "moto-storage.json"
LEDGERS = ROOT / "fixtures" / "peers" / "verdicts"
RULE = "storage.get-bucket-location.auto"


@pytest.fixture(scope="module")
def moto() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(RESULTS.read_text("utf-8"))
    return doc


def _section(html: str, ident: str) -> str:
    return html.split(f'id="{ident}"', 1)[1].split("</section>", 1)[0]


def _rule_block(html: str, rule_id: str) -> str:
    return html.split(f'id="{rule_id}"', 1)[1].split('<details class="rule', 1)[0]


def test_every_failing_rule_is_in_one_group_biggest_first(moto: dict[str, Any]) -> None:
    failing = {r["id"] for r in moto["rules"] if r["status"] in ("FAIL", "ERROR", "FLAKY")}
    groups = triage(moto)
    grouped = [r["id"] for g in groups for r in g.rules]
    assert sorted(grouped) == sorted(failing) and len(grouped) == len(set(grouped))
    assert [r["id"] for g in groups for p in g.parts for r in p.rules].count(RULE) == 1
    sizes = [g.size for g in groups]
    assert sizes == sorted(sizes, reverse=True)
    explained, total = top_share(groups)
    assert 3 * explained >= total, (explained, total)
    assert top_share(finest(groups))[0] >= 12  # the finer groups gather too, not singletons


def test_shared_causes_are_found(moto: dict[str, Any]) -> None:
    parts = {p.label.split(":")[0]: {r["id"] for r in p.rules} for p in finest(triage(moto))}
    # moto verifies no signature: the auth rules go together
    assert {"storage.auth.signature-mismatch", "storage.auth.unsigned-refused",
            "storage.auth.presigned-expired"} <= parts["auth"]  # fmt: skip
    assert {f"storage.list-buckets.ext-{n}" for n in ("prefix", "max-keys", "start-after")} <= (
        parts["ListBuckets"]
    )


def test_the_triage_view_and_a_rules_explanation_render(
    moto: dict[str, Any], tmp_path: Path
) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "interface-spec.md").write_text(
        "# Spec\n\n### Area C: object storage\n\n| operation | behaviour |\n|---|---|\n"
        "| GetBucketLocation | LocationConstraint is always `auto` |\n", "utf-8",
    )  # fmt: skip
    html = render_report(moto, spec.resolve().as_uri(), LEDGERS)
    triage_html = _section(html, "triage")
    assert "96 failing rules by likely cause" in triage_html
    assert triage_html.index("Requests the spec refuses are served") < triage_html.index(
        "A response header is missing"
    )
    assert 'href="#rules"' in triage_html  # the flat list, one click away
    block = _rule_block(html, RULE)
    assert "LocationConstraint is always `auto`" in block.replace("&#96;", "`")
    assert "in force 2022-05-16 → now" in block
    assert "test_location_is_auto" in block and "LocationConstraint is" in block  # docstring
    assert "<b>moto</b> fails it: GetBucketLocation answers an empty LocationConstraint" in block
    assert "seaweedfs" not in block or "fails it" in block


def test_without_ledgers_or_spec_the_explanation_says_so(
    moto: dict[str, Any], tmp_path: Path
) -> None:
    html = render_report(moto, None, tmp_path)  # an empty ledgers folder; no spec base
    block = _rule_block(html, RULE)
    assert "no peer verdict ledgers at hand" in block
    assert "Area C: object storage — GetBucketLocation" in block


def test_every_recorded_request_has_a_copyable_command(moto: dict[str, Any]) -> None:
    html = render_report(moto, None, LEDGERS)
    block = _rule_block(html, RULE)
    assert (
        "--aws-sigv4 aws:amz:auto:s3 --user &#34;$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY&#34;"
        in block
    )
    assert "?location=" in block
    assert "conformancemotokey" not in html and "conformance-moto-secret" not in html


@pytest.mark.slow
@needs_chromium
def test_the_triage_view_loads_in_a_browser_without_errors(
    moto: dict[str, Any], tmp_path: Path
) -> None:
    page = tmp_path / "index.html"
    page.write_text(render_report(moto, None, LEDGERS), "utf-8")
    dom = chromium("--dump-dom", page.as_uri())
    assert [line for line in dom.stderr.splitlines() if ":CONSOLE" in line] == []
    assert 'id="triage"' in dom.stdout and "Requests the spec refuses are served" in dom.stdout
