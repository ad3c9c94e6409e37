"""JUnit XML and allure results of a run carry the rules: ids, areas, operations, dates, links."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conformance.report.spec_links import SPEC_BASE_ENV

RULES = [
    {"id": "storage.put.ok", "operation": "PutObject",
     "spec": {"section": "Object operations", "row": "PutObject"}},
    {"id": "storage.put.new", "operation": "PutObject", "since": "2022-07-01",
     "until": "2030-01-01"},
    {"id": "logs.create.ok", "area": "logs", "surface": "rules-api", "operation": "CreateRule"},
]  # fmt: skip

TESTS = """
import pytest
from conformance.clients.evidence import Exchange, collector

@pytest.mark.rule("storage.put.ok", "storage.put.new")
def test_put():
    collector.add(Exchange.build("put", "http://t/b/k", 200, {}))

@pytest.mark.rule("logs.create.ok")
def test_create():
    collector.add(Exchange.build("post", "http://t/rules", 500, {}))
    assert False, "500"
"""


@pytest.fixture
def tiny(pytester: pytest.Pytester) -> pytest.Pytester:
    from fake_catalog import conftest_source

    pytester.makeconftest(conftest_source(RULES))
    pytester.makepyfile(TESTS)
    return pytester


def _properties(junit: Path) -> dict[str, list[tuple[str | None, str | None]]]:
    root = ET.parse(junit).getroot()
    return {
        str(tc.get("name")): [(p.get("name"), p.get("value")) for p in tc.iter("property")]
        for tc in root.iter("testcase")
    }


def test_junit_has_one_rule_id_property_per_rule_and_no_evidence(tiny: pytest.Pytester) -> None:
    junit = tiny.path / "junit.xml"
    tiny.runpytest("--junitxml", str(junit), "--as-of", "2024-01-01")
    props = _properties(junit)
    assert ("rule_id", "storage.put.ok") in props["test_put"]
    assert ("rule_id", "storage.put.new") in props["test_put"]
    assert ("rule_id", "logs.create.ok") in props["test_create"]
    names = {name for case in props.values() for name, _ in case}
    assert names <= {"rule_id", "case"}, names  # evidence and reasons stay out of JUnit
    assert all("method" not in str(value) for case in props.values() for _, value in case)


def _allure_results(directory: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in directory.glob("*-result.json"):
        data = json.loads(path.read_text())
        found[data["name"]] = data
    return found


def test_alluredir_gets_rule_labels_and_spec_links(
    tiny: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("allure_pytest")
    monkeypatch.setenv(SPEC_BASE_ENV, "https://spec.example/spec")
    allure = tiny.path / "allure"
    tiny.runpytest("--alluredir", str(allure), "--as-of", "2024-01-01")
    results = _allure_results(allure)
    put = {(label["name"], label["value"]) for label in results["test_put"]["labels"]}
    assert {("epic", "storage"), ("feature", "PutObject"), ("story", "storage.put.ok"),
            ("story", "storage.put.new"), ("tag", "since:2022-07-01"),
            ("tag", "until:2030-01-01")} <= put  # fmt: skip
    (link,) = results["test_put"]["links"]
    assert link["url"] == "https://spec.example/spec/interface-spec.md#object-operations"
    assert link["name"] == "Object operations — PutObject"
    create = {(label["name"], label["value"]) for label in results["test_create"]["labels"]}
    assert {("epic", "logs"), ("feature", "CreateRule"), ("story", "logs.create.ok")} <= create
    assert results["test_create"]["status"] == "failed"


def test_without_alluredir_no_allure_markers(tiny: pytest.Pytester) -> None:
    result = tiny.runpytest("--as-of", "2024-01-01", "--strict-markers")
    result.assert_outcomes(passed=1, failed=1)


@pytest.mark.slow
def test_under_xdist_evidence_and_expectations_reach_the_controller(tiny: pytest.Pytester) -> None:
    (tiny.path / "known.yaml").write_text("logs.create.ok: {link: 'https://t/5'}\n")
    out, junit = tiny.path / "results.json", tiny.path / "junit.xml"
    result = tiny.runpytest_subprocess(
        "-n", "2", "--as-of", "2024-01-01", "--results", str(out), "--junitxml", str(junit),
        "--expectations", "known.yaml", timeout=120,
    )  # fmt: skip
    result.assert_outcomes(passed=1, xfailed=1)
    cases = {c["rule_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["storage.put.ok"]["evidence"][0]["method"] == "PUT"
    assert cases["logs.create.ok"]["status"] == "XFAIL"
    assert cases["logs.create.ok"]["link"] == "https://t/5"
    assert cases["logs.create.ok"]["evidence"][0]["status"] == 500
    assert ("rule_id", "storage.put.new") in _properties(junit)["test_put"]
