"""An early answer that is a server error leaves the early-answer rule NOT-CHECKED, not N/A
(issue 23 item 5: "could not be checked here" must not read as "does not apply").

`storage.http.early-answer-keeps-stream` is judged on a 4xx the target sends before the
body. A 5xx there (the target failed on that request) read N/A, which certifies: the run
went CERTIFIED with the rule unchecked on a target that broke.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.suite_runner import run_suite

pytestmark = pytest.mark.slow
RULE = "storage.http.early-answer-keeps-stream"
PLUGIN = Path(__file__).parents[1] / "helpers" / "early_server_error.py"


def test_an_early_5xx_is_not_checked(tmp_path: Path) -> None:
    shutil.copy(PLUGIN, tmp_path / PLUGIN.name)
    document = run_suite(tmp_path, rules=[RULE], extra_args=["-p", "early_server_error"])
    cases = [c for c in document["cases"] if c["rule_id"] == RULE]
    assert cases and {c["status"] for c in cases} == {"NOT-CHECKED"}, (
        [(c["status"], c["message"]) for c in cases],
        document["_output"],
    )
    assert all("503" in str(c["message"]) for c in cases)
    rules = {r["id"]: r["status"] for r in document["rules"]}
    assert rules[RULE] == "NOT-CHECKED"
