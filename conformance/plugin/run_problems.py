"""Problems of a run that no test case records, so that none can hide behind a verdict.

A suite module that does not import (a missing dependency, a syntax error), an internal error
of the plugin, or a reference implementation that died during the run: each becomes an entry of
results.json `run.problems`, makes the verdict NOT CERTIFIED, and a module's failure becomes an
ERROR case for every rule its source names (ERROR, not UNTESTED: the run tried and broke).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.coverage import rule_ids_in_file
from conformance.results import ERROR

MESSAGE_LIMIT = 2000
COLLECTION, INTERNAL, REFERENCE = "collection", "internal", "reference"


def _text(longrepr: Any) -> str:
    text = str(longrepr or "").strip()
    lines = [line for line in text.splitlines() if line.strip()]
    # pytest's import-error repr ends with the exception line: keep that first, then the rest
    summary = next(
        (ln for ln in reversed(lines) if ln.startswith("E ")), lines[-1] if lines else ""
    )
    summary = summary.removeprefix("E").strip()
    body = text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + "…"
    return f"{summary}\n{body}" if summary and summary not in body[:200] else body


@dataclass(eq=False)  # registered as a pytest plugin: must stay hashable
class ProblemRecorder:
    """Collects run problems on the process that writes results (the xdist controller)."""

    rootpath: Path
    problems: list[dict[str, Any]] = field(default_factory=list)  # State.problems, shared

    def add(self, kind: str, where: str, message: str, rules: list[str] | None = None) -> None:
        self.problems.append(
            {"kind": kind, "where": where, "message": message, "rules": list(rules or [])}
        )

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if not report.failed:
            return
        where = report.nodeid or "."
        path = (self.rootpath / report.fspath).resolve() if report.fspath else self.rootpath
        self.add(COLLECTION, where, _text(report.longrepr), rule_ids_in_file(str(path)))

    def pytest_internalerror(self, excrepr: Any, excinfo: Any) -> None:
        self.add(INTERNAL, "pytest plugin", _text(excrepr))

    def error_cases(self) -> list[dict[str, Any]]:
        """One ERROR case per rule of a module that failed to collect."""
        cases = []
        for problem in self.problems:
            if problem["kind"] != COLLECTION:
                continue
            first = problem["message"].splitlines()[0] if problem["message"] else ""
            for rule_id in problem["rules"]:
                cases.append(
                    {
                        "rule_id": rule_id, "nodeid": problem["where"], "case": "collection",
                        "status": ERROR, "duration": 0.0, "evidence": [],
                        "message": f"collection error in {problem['where']}: {first}",
                    }
                )  # fmt: skip
        return cases
