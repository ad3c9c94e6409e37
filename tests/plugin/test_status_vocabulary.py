"""The one status vocabulary (conformance.results.Status) agrees with the results schema, and
the report and history read their sets from it instead of spelling statuses again."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from conformance import results
from conformance.report import load

PACKAGE = Path(results.__file__).parent
# modules that used to spell statuses themselves (issue 24 item 1)
READERS = [
    "report/load.py", "report/scope.py", "report/view.py", "report/diff.py",
    "report/summary.py", "report/matrix.py", "report/timeline.py", "report/triage.py",
    "history/analysis.py", "history/store.py", "model/expectations.py", "replay.py",
    "failed_from.py", "cli_run.py",
]  # fmt: skip
SPELLED = re.compile(r"""["'](PASS|FAIL|ERROR|FLAKY|XPASS|XFAIL|N/A|UNTESTED)["']""")


def test_schema_enums_are_the_vocabulary() -> None:
    defs = results.load_schema()["$defs"]
    assert defs["case_status"]["enum"] == [s.value for s in results.CASE_STATUSES]
    assert defs["rule_status"]["enum"] == [s.value for s in results.RULE_STATUSES]
    assert {s.value for s in results.RULE_STATUSES} == {s.value for s in results.Status}


def test_every_status_has_a_summary_count() -> None:
    counted = results.load_schema()["$defs"]["counts"]["properties"]
    assert {s.key for s in results.Status} <= set(counted)
    order = [s.key for s in results.SUMMARY_ORDER]
    assert order == list(results._empty_counts())[: len(order)]


def test_no_reader_spells_a_status_string() -> None:
    found = {
        name: SPELLED.findall((PACKAGE / name).read_text(encoding="utf-8")) for name in READERS
    }
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_one_schema_check_for_writer_and_report() -> None:
    """The report's warnings and the writer's validation come from the same validator."""
    bad = {"schema_version": 1, "run": {}, "cases": [{"status": "MAYBE"}], "rules": []}
    problems = load.schema_problems(bad)
    assert problems and problems == results.schema_problems(bad)
    with pytest.raises(jsonschema.ValidationError):
        results.validate(bad)
