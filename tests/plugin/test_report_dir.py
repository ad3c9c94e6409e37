"""--report-dir in plain pytest runs: the same <dir>/<run-id>/ layout `conformance run` writes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

TESTS = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_put():
    pass
"""


def test_report_dir_gets_results_and_junit(suite: pytest.Pytester) -> None:
    suite.makepyfile(TESTS)
    result = suite.runpytest("--report-dir", "out", "--run-id", "night-1")
    assert result.ret == pytest.ExitCode.OK
    run_dir = suite.path / "out" / "night-1"
    doc = json.loads((run_dir / "results.json").read_text())
    assert doc["run"]["run_id"] == "night-1"
    assert [c["status"] for c in doc["cases"]] == ["PASS"]
    assert ET.parse(run_dir / "junit.xml").getroot().iter("testcase")


def test_report_dir_default_run_id(suite: pytest.Pytester) -> None:
    suite.makepyfile(TESTS)
    suite.runpytest("--report-dir", "out")
    (run_dir,) = (suite.path / "out").iterdir()
    doc = json.loads((run_dir / "results.json").read_text())
    assert doc["run"]["run_id"] == run_dir.name


def test_explicit_results_and_junitxml_win(suite: pytest.Pytester) -> None:
    suite.makepyfile(TESTS)
    suite.runpytest("--report-dir", "out", "--results", "r.json", "--junitxml", "j.xml")
    assert (suite.path / "r.json").is_file() and (suite.path / "j.xml").is_file()
    assert not (suite.path / "out").exists()


def test_report_dir_keeps_explicit_junitxml(suite: pytest.Pytester) -> None:
    suite.makepyfile(TESTS)
    suite.runpytest("--report-dir", "out", "--run-id", "r", "--junitxml", "j.xml")
    assert (suite.path / "out" / "r" / "results.json").is_file()
    assert (suite.path / "j.xml").is_file()
    assert not (suite.path / "out" / "r" / "junit.xml").exists()
