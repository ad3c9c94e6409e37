"""A defect found by a hostile review (fixed, plugin/uncollected.py): naming one
parametrization of a MUST rule's test (`test_x.py::test_y[good]`, the node id pytest prints)
left the failing `[bad]` one out unseen and the run CERTIFIED.

uncollected.py reads rule marks from source, which cannot tell parametrizations apart: the
function counted as seen, and pytest hands the dropped parametrizations to no hook but
pytest_make_collect_report.
"""

from __future__ import annotations

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results

SOURCE = """
import pytest

@pytest.mark.rule("storage.must.kept")
@pytest.mark.parametrize("value", ["good", "bad"])
def test_value(value):
    assert value == "good", "MUST broken"
"""


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_one_parametrization_named_is_not_certified(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    pytester.makepyfile(test_one=SOURCE)
    conftest = conftest_source([{"id": "storage.must.kept"}])
    _, doc = run_with_results(
        pytester, *workers, "test_one.py::test_value[good]", conftest=conftest
    )
    results.validate(doc)
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT, doc["rules"]
    left = [case for case in doc["cases"] if case["status"] == results.NOT_CHECKED]
    assert [case["nodeid"] for case in left] == ["test_one.py::test_value[bad]"], left
