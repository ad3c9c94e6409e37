"""pytest plugin of every suite run the harness makes: the storage model's test runs last.

A mutant's run stops at its first failing test (`-x`, suite_cmd.py), so the tests collected
before the one that kills it are what a killed mutant costs. The stateful model
(conformance/suite/storage/model) is the longest test of every storage selection (~300
requests, 8-20 s of a run of 30-45 s) and its module sorts before `multipart/` and `objects/`:
a mutant killed there paid the whole model first. Run last, it still runs in full for every
survivor and every baseline (nothing it checks is dropped) and for a mutant only the model
kills; it is skipped only where an earlier test already proved the kill.

Loaded (`-p bench.mutation.order_plugin`) by suite_cmd for the baselines as well as the
mutants, so a kill is judged against a baseline run in the same order. Only whole modules
move (their module-scoped fixtures stay together); everything else keeps its order.
"""

from __future__ import annotations

import pytest

LAST = ("conformance.suite.storage.model.test_store_model",)


def _last(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    return getattr(module, "__name__", "") in LAST


EXACT = "--ec-deselect-exact"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        EXACT, action="append", default=[], metavar="NODEID",
        help="leave out the test of exactly this node id (pytest's --deselect also leaves out "
        "every test whose id only begins with it: test_get_range took test_get_range_reports_"
        "its_range with it)",
    )  # fmt: skip


@pytest.hookimpl(trylast=True)  # after the suite's own selection (--rule, --area, --as-of)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A stable partition: the LAST modules' tests after every other test; the tests named by
    --ec-deselect-exact left out (the cases a mutant's first run saw stopped by the case
    timeout, suite_cmd.py)."""
    exact = set(config.getoption(EXACT) or [])
    left = [i for i in items if i.nodeid in exact]
    if left:
        config.hook.pytest_deselected(items=left)
    kept = [i for i in items if i.nodeid not in exact]
    items[:] = [i for i in kept if not _last(i)] + [i for i in kept if _last(i)]
