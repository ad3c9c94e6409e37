"""The heavy-first schedule (helpers/schedule.py): who gets which long test, and that its list
names tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

from helpers.schedule import estimated_cost, heavy_costs, heavy_first

ROOT = Path(__file__).resolve().parents[1]


def test_a_prefix_covers_its_parameters_and_the_longest_prefix_wins() -> None:
    costs = {"t.py::test_a": 10.0, "t.py::test_a[x]": 30.0}
    assert estimated_cost("t.py::test_a[x]", costs) == 30.0
    assert estimated_cost("t.py::test_a[y]", costs) == 10.0
    assert estimated_cost("t.py::test_a", costs) == 10.0
    assert estimated_cost("t.py::test_ab", costs) is None


def test_longest_first_each_to_the_less_loaded_worker() -> None:
    collection = ["a::fast", "a::t[1]", "a::t[2]", "b::u", "b::v", "c::fast"]
    costs = {"a::t[1]": 50, "a::t[2]": 40, "b::u": 30, "b::v": 20}
    # 50 -> w0; 40 -> w1; 30 -> w1 (40 < 50); 20 -> w0 (50 < 70)
    assert heavy_first(collection, 2, costs) == [[1, 4], [2, 3]]
    assert heavy_first(collection, 1, costs) == [[1, 2, 3, 4]]
    assert heavy_first(["x::y"], 2, costs) == [[], []]


def test_every_listed_test_exists() -> None:
    """A stale entry would only cost time, but it says the list no longer fits the tests."""
    for prefix in heavy_costs():
        path, _, rest = prefix.partition("::")
        function = re.match(r"\w+", rest)
        assert function, prefix
        source = (ROOT / path).read_text("utf-8")
        assert f"def {function.group()}(" in source, prefix
