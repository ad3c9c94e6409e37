"""A defect found by a hostile review (fixed, conformance/report/diff.py): a new run narrowed
by `--area`/`--rule` (or one of the same catalog that lacks rules) dropped MUST rules the old
certificate covered, and `conformance diff` (and `conformance run --baseline`) said "no
regressions" and exited 0: a full run against one of `--area gateway` listed 377 "removed"
rules and nothing else, and the verdict, CERTIFIED both times, hid that the certificate now
covered one surface of eight. Such rules are now listed as left out, and a certificate that
covers fewer MUST rules fails the diff (exit 1) like a lost one; a rule the catalog itself
dropped (a new catalog, no filter) is still only "removed".
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from report_helpers import RESULTS

from conformance.cli import main
from conformance.report.diff import diff_results

LEFT = "storage.put-object.round-trip"


def _without(doc: dict[str, Any], rule_id: str, **flags: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["rules"] = [rule for rule in doc["rules"] if rule["id"] != rule_id]
    doc["cases"] = [case for case in doc["cases"] if case["rule_id"] != rule_id]
    doc["run"]["flags"].update(flags)
    return doc


@pytest.mark.parametrize("flags", [{"area": ["storage"]}, {}], ids=["area-filter", "same-catalog"])
def test_a_narrowed_certificate_fails_the_diff(
    all_pass: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: dict[str, Any],
) -> None:
    new = tmp_path / "new.json"
    new.write_text(json.dumps(_without(all_pass, LEFT, **flags)))
    assert main(["diff", str(RESULTS / "all-pass.json"), str(new)]) == 1
    out = capsys.readouterr().out
    assert LEFT in out and "CERTIFICATE NARROWED" in out, out


def test_a_rule_the_new_catalog_dropped_is_only_removed(all_pass: dict[str, Any]) -> None:
    new = _without(all_pass, LEFT)
    new["run"]["catalog_hash"] = "sha256:another"
    change = diff_results(all_pass, new)
    assert [c.rule_id for c in change.removed] == [LEFT]
    assert not change.fails
