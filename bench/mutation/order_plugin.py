"""pytest plugin of every suite run the harness makes: the storage model's test runs last.

A mutant's run stops at its first failing test (`-x`, suite_cmd.py), so the tests collected
before the one that kills it are what a killed mutant costs. The stateful model
(conformance/suite/storage/model) is the longest test of every storage selection (~300
requests, 8-20 s of a run of 30-45 s) and its module sorts before `multipart/` and `objects/`:
a mutant killed there paid the whole model first. Run last, it still runs in full for every
survivor and every baseline (nothing it checks is dropped) and for a mutant only the model
kills; it is skipped only where an earlier test already proved the kill.

The reference-only rule that the bundled reference delivers the whole log round (FIRST) goes
the other way: its test, and its module with it, run first. A mutant that stops or breaks
delivery leaves every records test of the round not checked (a setup ERROR, no kill), so a -x
run stopped there and the rerun waited out the log wait in every module (edge delivery.py
mutants: 300-480 s each, killed only by that rule at the end); run first, it kills after one
round.

Loaded (`-p bench.mutation.order_plugin`) by suite_cmd for the baselines as well as the
mutants, so a kill is judged against a baseline run in the same order. Only whole modules
move (their module-scoped fixtures stay together), and inside a module only FIRST's tests;
everything else keeps its order.
"""

from __future__ import annotations

import pytest

LAST = ("conformance.suite.storage.model.test_store_model",)
FIRST = frozenset({"logs.logpush.reference-delivers-round"})
# the suite's own first module (conformance/plugin/collection.py FIRST, which bench may not
# import): its reference-only pre-flight rules kill a whole surface down before any round
PREFLIGHT = ("conformance.suite.test_reference_preflight",)


def _last(item: pytest.Item) -> bool:
    return _module(item) in LAST


def _module(item: pytest.Item) -> str:
    return str(getattr(getattr(item, "module", None), "__name__", ""))


def _first(item: pytest.Item) -> bool:
    return any(set(mark.args) & FIRST for mark in item.iter_markers("rule"))


def _ordered(items: list[pytest.Item]) -> list[pytest.Item]:
    """The suite's pre-flight, then the modules holding a FIRST test (that test first in its
    module), the LAST modules last, every other order kept."""
    leading = [*PREFLIGHT, *dict.fromkeys(_module(i) for i in items if _first(i))]
    ahead = [
        i
        for module in leading  # one module after the other: its module fixtures set up once
        for i in sorted((i for i in items if _module(i) == module), key=lambda i: not _first(i))
    ]
    rest = [i for i in items if _module(i) not in leading]
    return ahead + [i for i in rest if not _last(i)] + [i for i in rest if _last(i)]


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
    """A stable partition (FIRST's modules first, the LAST modules' tests after every other
    test); the tests named by --ec-deselect-exact left out (the cases a mutant's first run saw
    stopped by the case timeout, suite_cmd.py)."""
    exact = set(config.getoption(EXACT) or [])
    left = [i for i in items if i.nodeid in exact]
    if left:
        config.hook.pytest_deselected(items=left)
    items[:] = _ordered([i for i in items if i.nodeid not in exact])
