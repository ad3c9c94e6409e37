"""Reading results.json files: the one input every report, matrix and diff starts from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance import results
from conformance.results import EXIT_FAILING, count_key

Results = dict[str, Any]


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


def shape_problem(doc: Results) -> str | None:
    """Why `rules`/`cases` cannot be walked rule by rule, or None when they can.

    `conformance report` renders what it can of a broken file; commands that act on each
    rule (`expectations update`, `diff`) need every rule to be an object with an id and a
    status, and every case an object with a rule id, or they would fail with a traceback.
    """
    for key, needed in (("rules", ("id", "status")), ("cases", ("rule_id",))):
        items = doc.get(key)
        if not isinstance(items, list):
            return f"'{key}' is not a list"
        for n, item in enumerate(items):
            if not isinstance(item, dict):
                return f"{key}[{n}] is not an object"
            for field in needed:
                if not isinstance(item.get(field), str):
                    return f"{key}[{n}] has no string '{field}'"
    return None


def schema_problems(doc: Results, limit: int = 5) -> list[str]:
    """Schema violations of a results document (results.schema.json, as the writer checks).

    The recorder validates before writing; this catches files from elsewhere (merged, edited,
    older suite versions) so the report can warn instead of rendering nonsense silently.
    """
    return results.schema_problems(doc, limit)


def failing_cases(doc: Results) -> list[dict[str, Any]]:
    """Cases whose status fails the run: FAIL, ERROR or XPASS."""
    return [c for c in doc.get("cases", []) if c.get("status") in EXIT_FAILING]


def status_slug(status: str | None) -> str:
    """CSS/filter-friendly name of a status: N/A -> na, PASS -> pass."""
    return count_key(status or "")
