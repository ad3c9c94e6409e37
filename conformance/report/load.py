"""Reading results.json files: the one input every report, matrix and diff starts from."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

Results = dict[str, Any]

CASE_STATUSES = ("PASS", "FAIL", "ERROR", "N/A", "XFAIL", "XPASS", "FLAKY")
RULE_STATUSES = (*CASE_STATUSES, "UNTESTED")
# Case statuses that make `conformance run` exit non-zero (DESIGN.md "Statuses and scores").
# FLAKY does not: the case passed on a rerun; it is reported and never counted as a pass.
FAILING_STATUSES = frozenset({"FAIL", "ERROR", "XPASS"})


class ResultsError(Exception):
    """A results file that cannot be read at all (missing, not JSON, not an object)."""


def load_results(path: str | Path) -> Results:
    """Parse one results file; structural problems the report can live with are not fatal."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ResultsError(f"{path}: no such results file") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsError(f"{path}: not a readable results file ({exc})") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("run"), dict):
        raise ResultsError(f"{path}: not a results file (no 'run' object)")
    doc.setdefault("cases", [])
    doc.setdefault("rules", [])
    doc.setdefault("summary", {"certified": False, "areas": {}})
    return doc


def schema_problems(doc: Results, limit: int = 5) -> list[str]:
    """Schema violations of a results document, when the schema ships with the package.

    The recorder validates before writing; this catches files from elsewhere (merged, edited,
    older suite versions) so the report can warn instead of rendering nonsense silently.
    """
    try:
        text = resources.files("conformance.schemas").joinpath("results.schema.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError):
        return []
    import jsonschema  # local: only needed when a schema is present

    schema = json.loads(text)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [
        f"{'/'.join(str(p) for p in err.absolute_path) or '(root)'}: {err.message}"
        for err in errors[:limit]
    ]


def failing_cases(doc: Results) -> list[dict[str, Any]]:
    """Cases whose status fails the run: FAIL, ERROR or XPASS."""
    return [c for c in doc.get("cases", []) if c.get("status") in FAILING_STATUSES]


def status_slug(status: str | None) -> str:
    """CSS/filter-friendly name of a status: N/A -> na, PASS -> pass."""
    return (status or "untested").lower().replace("/", "")
