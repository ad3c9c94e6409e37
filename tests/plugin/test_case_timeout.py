"""A test that hangs past pytest-timeout's limit is an ERROR of its rule, not a FAIL."""

from __future__ import annotations

import json

import pytest

HANGING = """
import time
import pytest

@pytest.mark.rule("storage.put.ok")
def test_hangs():
    time.sleep(30)

@pytest.mark.rule("logs.create.ok")
def test_fails():
    assert 1 == 2, "a real rule violation"
"""


def test_timeout_is_recorded_as_error(suite: pytest.Pytester) -> None:
    """The hang becomes ERROR with pytest-timeout's message; an assertion stays FAIL."""
    suite.makepyfile(test_hang=HANGING)
    results = suite.path / "results.json"
    suite.runpytest("-p", "no:cacheprovider", "--timeout", "2", "--results", str(results))
    cases = {c["rule_id"]: c for c in json.loads(results.read_text("utf-8"))["cases"]}
    assert cases["storage.put.ok"]["status"] == "ERROR", cases
    assert "Timeout" in (cases["storage.put.ok"]["message"] or "")
    assert cases["logs.create.ok"]["status"] == "FAIL", cases
