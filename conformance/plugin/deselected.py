"""Tests of selected rules that `-k`, `-m` or `--deselect` left out of the run, or that the
collection never saw (a positional path, `--ignore`: uncollected.py).

A rule whose failing test was left out would read PASS on its other tests and certify; so
each left-out test of a rule becomes a NOT-CHECKED case of it (a rule with one is never PASS,
and a MUST one blocks the certificate). Under xdist the workers collect, so each hands its list
to the controller in `workeroutput`. Tests `--rule`/`--area` drop name no selected rule: their
cases are left out of results.json with the rules outside the selection.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.plugin import uncollected
from conformance.plugin.case_records import stable_nodeid
from conformance.plugin.collection import RULES_KEY
from conformance.results import DESELECTED_CASE, NOT_CHECKED, UNCOLLECTED_CASE

WORKER_KEY = "edge_conformance_deselected"
# (rule id, node id, case) on the controller
LEFT = pytest.StashKey[list[tuple[str, str, str]]]()
MESSAGES = {
    DESELECTED_CASE: "deselected (-k, -m or --deselect): this test of the rule did not run",
    UNCOLLECTED_CASE: "not collected (a test path named on the command line, --ignore, --lf): "
    "this test of the rule did not run",
}


def _left(config: pytest.Config) -> list[tuple[str, str, str]]:
    if LEFT not in config.stash:
        config.stash[LEFT] = []
    return config.stash[LEFT]


def _record(config: pytest.Config, found: list[tuple[str, str, str]]) -> None:
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput.setdefault(WORKER_KEY, []).extend(found)
    else:
        _left(config).extend(found)


def pytest_deselected(items: list[pytest.Item]) -> None:
    if not items:
        return
    config = items[0].config
    # the node id a case of the test has when it runs (in another shard, say): merge pairs them
    found = [
        (str(rule.id), stable_nodeid(item, config.rootpath), DESELECTED_CASE)
        for item in items
        for rule in item.stash.get(RULES_KEY, ())
    ]
    _record(config, found)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Where tests are collected (here, or each xdist worker): the suite's marked tests the
    collection did not see."""
    config = session.config
    found = [(rule_id, nodeid, UNCOLLECTED_CASE) for rule_id, nodeid in uncollected.missing(config)]
    found += [
        (str(rule.id), stable_nodeid(item, config.rootpath), UNCOLLECTED_CASE)
        for item in uncollected.dropped(config)
        for rule in item.stash.get(RULES_KEY, ())
    ]
    _record(config, found)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist, on the controller: a worker's left-out tests (each worker collects them all)."""
    left = _left(node.config)
    for rule_id, nodeid, case in (getattr(node, "workeroutput", None) or {}).get(WORKER_KEY, []):
        if (rule_id, nodeid, case) not in left:
            left.append((rule_id, nodeid, case))


def cases(config: pytest.Config) -> list[dict[str, Any]]:
    """One NOT-CHECKED case per left-out test of a rule."""
    return [
        {"rule_id": rule_id, "nodeid": nodeid, "case": case, "status": NOT_CHECKED,
         "duration": 0.0, "evidence": [], "message": MESSAGES[case]}
        for rule_id, nodeid, case in dict.fromkeys(_left(config))
    ]  # fmt: skip
