"""A defect found by a review of 9788910 (fixed): an expectation's `status` (FAIL or ERROR,
model/expectations.py) was never compared with what happened: the xfail it becomes has no
`raises`, so a MUST rule expected to FAIL (the
target answers wrongly) that now ERRORs (the suite or target broke in a new way: a crash, a
timeout) still reads XFAIL and `conformance run` exits 0; the new breakage is hidden."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_catalog import conftest_source

from conformance.cli_run import agree, run_exit_code

RULES = [{"id": "storage.must.known"}]
TESTS = """
import pytest

@pytest.mark.rule("storage.must.known")
def test_known():
    raise RuntimeError("a new breakage: the target reset the connection")
"""


def test_an_error_is_not_the_expected_fail(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(conftest_source(RULES))
    pytester.makepyfile(TESTS)
    (pytester.path / "known.yaml").write_text("storage.must.known: {status: FAIL}\n")
    out = pytester.path / "results.json"
    rc = int(
        pytester.runpytest(
            "--results", str(out), "--as-of", "2024-01-01",
            "--expectations", str(pytester.path / "known.yaml"),
        ).ret
    )  # fmt: skip
    doc: dict[str, Any] = json.loads(out.read_text())
    code, reasons = run_exit_code(doc, rc)
    agree(doc, code, reasons, rc)
    status = doc["cases"][0]["status"]
    assert status != "XFAIL" or code != 0, (status, code)
