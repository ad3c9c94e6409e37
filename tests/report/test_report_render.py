"""The single-run HTML report: content, escaping, self-containment."""

from __future__ import annotations

import re
from typing import Any

from report_helpers import well_formed_problems

from conformance.report.load import schema_problems
from conformance.report.render import render_report
from conformance.report.spec_links import slug, spec_href
from conformance.report.timeline import build_timeline


def test_report_is_well_formed_html(mixed: dict[str, Any]) -> None:
    """The page parses with every element closed in order."""
    assert well_formed_problems(render_report(mixed)) == []


def test_report_shows_run_facts_and_verdict(
    mixed: dict[str, Any], all_pass: dict[str, Any]
) -> None:
    """Target, as-of, suite version and the MUST verdict are at the top."""
    html = render_report(mixed)
    head = html[: html.index('id="scores"')]
    assert "staging" in head and "2024-11-21" in head and "0.1.0" in head
    assert "Not certified at MUST level" in head
    assert "Certified at MUST level" in render_report(all_pass)
    assert "Not certified" not in render_report(all_pass)


def test_report_shows_area_scores_and_bars(mixed: dict[str, Any]) -> None:
    """Every area and level has its score, coverage and a stacked bar from the summary."""
    html = render_report(mixed)
    for area in ("logs", "gateway", "storage"):
        assert f'id="area-{area}"' in html
    storage = html[html.index('id="area-storage"') :]
    assert "78%" in storage and "(7/9)" in storage  # score 0.7778 over PASS+FAIL+ERROR
    assert re.search(r'class="s-fail" style="width: [0-9.]+%"', html)


def test_report_lists_every_rule_with_status(mixed: dict[str, Any]) -> None:
    """Each rule has its own entry, carrying its status for the filters."""
    html = render_report(mixed)
    for rule in mixed["rules"]:
        slug_ = rule["status"].lower().replace("/", "")
        assert f'id="{rule["id"]}" data-area="{rule["area"]}" data-status="{slug_}"' in html


def test_report_shows_evidence(mixed: dict[str, Any]) -> None:
    """Evidence shows the request line, the status and the kept headers."""
    html = render_report(mixed)
    assert "HEAD http://127.0.0.1:9000/ec-9f8e7d6c-b3</b> → 200" in html
    assert "x-amz-bucket-region" in html and "us-east-1" in html
    assert '<details class="evidence">' in html


def test_report_says_which_writes_the_evidence_does_not_hold(mixed: dict[str, Any]) -> None:
    """An exchange after a gap in the bounded recording says how many writes are missing (a
    replay of it rebuilds another state: docs/triage.md)."""
    import copy

    doc = copy.deepcopy(mixed)
    case = next(c for c in doc["cases"] if c.get("evidence"))
    assert "not recorded" not in render_report(doc)
    case["evidence"][0]["left_out"] = 990
    assert schema_problems(doc) == []
    html = render_report(doc)
    assert "(990 earlier write(s) its state came from are not recorded)" in html


def test_report_escapes_messages_and_bodies(mixed: dict[str, Any]) -> None:
    """Markup from a target (messages, bodies) is shown as text, never run."""
    html = render_report(mixed)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert html.count("<script>") == 1  # ours: the inline filter code


def test_report_is_self_contained(mixed: dict[str, Any]) -> None:
    """No stylesheet, script, image or font is fetched from anywhere."""
    html = render_report(mixed)
    assert "<link" not in html
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", html)
    assert "@import" not in html and "url(" not in html


def test_na_rules_show_their_reason(mixed: dict[str, Any]) -> None:
    """An N/A rule says why it does not apply."""
    html = render_report(mixed)
    entry = html[html.index('id="storage.public.options-without-origin"') :]
    assert "surface not offered: public" in entry[: entry.index("</details>")]
    assert "not testable: needs a 5 TiB upload" in html


def test_filters_cover_areas_and_statuses(mixed: dict[str, Any]) -> None:
    """The filter bar offers every area and every status present."""
    html = render_report(mixed)
    for area in ("logs", "gateway", "storage"):
        assert f'<option value="{area}">' in html
    for value in ("fail", "error", "xfail", "pass", "untested", "na"):
        assert f'name="status" value="{value}"' in html
    assert 'id="f-text"' in html


def test_spec_links_point_at_section_anchors(mixed: dict[str, Any]) -> None:
    """With a spec location, each rule links to its section's anchor."""
    assert slug("Area C: object storage") == "area-c-object-storage"
    assert slug("Response envelope (Area A)") == "response-envelope-area-a"
    assert spec_href(None, {"section": "Errors"}) is None
    html = render_report(mixed, spec_base="https://example.test/spec/")
    assert 'href="https://example.test/spec/interface-spec.md#area-c-object-storage"' in html
    assert 'href="https://example.test/spec/decisions.md#placeholder-answers"' in html


def test_timeline_places_dated_rules(mixed: dict[str, Any]) -> None:
    """Dated rules sit on the axis in date order; later dates than the as-of are marked."""
    timeline = build_timeline(mixed["rules"], "2022-05-01")
    assert timeline is not None
    assert [s.date for s in timeline.stops] == [
        "2022-04-04",
        "2022-07-01",
        "2023-01-30",
        "2023-06-15",
    ]
    assert [s.past for s in timeline.stops] == [True, False, False, False]
    assert timeline.stops[0].marks[0].rule_id == "storage.delete-objects.key-limit"
    assert 0 <= timeline.as_of_x <= 100
    assert build_timeline([], "2024-01-01") is None
    assert 'id="timeline"' in render_report(mixed)


def test_schema_problems_are_reported(mixed: dict[str, Any]) -> None:
    """The sample files follow the schema; a broken file renders with a warning."""
    assert schema_problems(mixed) == []
    mixed["cases"][0]["status"] = "MAYBE"
    problems = schema_problems(mixed)
    assert problems and "MAYBE" in problems[0]
    assert "does not match the results schema" in render_report(mixed)
