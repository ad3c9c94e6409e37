"""Tests of selected rules that `-k`, `-m` or `--deselect` left out of the run.

A rule whose failing test was deselected would read PASS on its other tests and certify; so
each deselected test of a rule becomes a NOT-CHECKED case of it (a rule with one is never PASS,
and a MUST one blocks the certificate). Under xdist the workers collect, so each hands its list
to the controller in `workeroutput`. Tests `--rule`/`--area` drop name no selected rule: their
cases are left out of results.json with the rules outside the selection.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.plugin.case_records import stable_nodeid
from conformance.plugin.collection import RULES_KEY
from conformance.results import DESELECTED_CASE, NOT_CHECKED

WORKER_KEY = "edge_conformance_deselected"
LEFT = pytest.StashKey[list[tuple[str, str]]]()  # (rule id, node id) on the controller


def _left(config: pytest.Config) -> list[tuple[str, str]]:
    if LEFT not in config.stash:
        config.stash[LEFT] = []
    return config.stash[LEFT]


def pytest_deselected(items: list[pytest.Item]) -> None:
    if not items:
        return
    config = items[0].config
    # the node id a case of the test has when it runs (in another shard, say): merge pairs them
    found = [
        (str(rule.id), stable_nodeid(item, config.rootpath))
        for item in items
        for rule in item.stash.get(RULES_KEY, ())
    ]
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput.setdefault(WORKER_KEY, []).extend(found)
    else:
        _left(config).extend(found)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist, on the controller: a worker's deselected tests (each worker collects them all)."""
    left = _left(node.config)
    for rule_id, nodeid in (getattr(node, "workeroutput", None) or {}).get(WORKER_KEY, []):
        if (rule_id, nodeid) not in left:
            left.append((rule_id, nodeid))


def cases(config: pytest.Config) -> list[dict[str, Any]]:
    """One NOT-CHECKED case per deselected test of a rule."""
    return [
        {"rule_id": rule_id, "nodeid": nodeid, "case": DESELECTED_CASE, "status": NOT_CHECKED,
         "duration": 0.0, "evidence": [],
         "message": "deselected (-k, -m or --deselect): this test of the rule did not run"}
        for rule_id, nodeid in dict.fromkeys(_left(config))
    ]  # fmt: skip
