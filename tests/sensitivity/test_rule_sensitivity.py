"""Each listed rule goes FAIL when the reference is made to break it: no check that cannot fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.suite_runner import rule_status, run_expecting_fail

DEVIATIONS = yaml.safe_load((Path(__file__).parent / "deviations.yaml").read_text("utf-8"))


def _cases() -> list[Any]:
    cases = []
    for entries in DEVIATIONS.values():
        for entry in entries:
            profile = ",".join(f"{k}={v}" for k, v in entry["profile"].items())
            as_of = entry.get("as_of")
            label = f"{entry['rule']}[{profile}{'@' + as_of if as_of else ''}]"
            cases.append(pytest.param(entry, id=label, marks=pytest.mark.slow))
    return cases


@pytest.mark.parametrize("entry", _cases())
def test_suite_reports_fail_against_deviating_reference(
    tmp_path: Path, entry: dict[str, Any]
) -> None:
    """The suite, run against a reference that breaks the rule, reports the rule FAIL."""
    document = run_expecting_fail(
        tmp_path,
        rules=[entry["rule"]],
        as_of=entry.get("as_of"),
        reference_profile={k: str(v) for k, v in entry["profile"].items()},
    )
    status = rule_status(document, entry["rule"])
    assert status == "FAIL", f"{entry['rule']} is {status}, not FAIL:\n{document['_output']}"
