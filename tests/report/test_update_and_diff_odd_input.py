"""Fixed defect (a review of 9788910), kept as a regression test:
`conformance expectations update` and `conformance diff` crash with a traceback on a
results file `conformance report` refuses cleanly (a rule without `status`, `rules` not a list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main

RUN = '"run": {"target": "x", "as_of": "2024-01-01"}'
ODD = {
    "rule-without-status": "{" + RUN + ', "rules": [{"id": "a", "level": "MUST"}], "cases": []}',
    "rules-not-a-list": "{" + RUN + ', "rules": {"a": 1}, "cases": []}',
}


def _code(argv: list[str]) -> int | str:
    try:
        return main(argv)
    except Exception as exc:  # the traceback the user would see
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("name", sorted(ODD))
def test_expectations_update_refuses_an_odd_file(name: str, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(ODD[name])
    assert _code(["expectations", "update", str(path), "-o", str(tmp_path / "e.yaml")]) == 2


def test_diff_refuses_rules_that_are_not_a_list(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(ODD["rules-not-a-list"])
    assert _code(["diff", str(path), str(path)]) == 2
