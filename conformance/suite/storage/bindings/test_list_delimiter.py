"""list() with a delimiter: keys under a common prefix roll up into `delimitedPrefixes`, each once.

The provider's Workers R2 reference describes `delimitedPrefixes` as the prefixes between the
listed prefix and the next delimiter: a set, one entry per group. Groups of one key and of
several keys, next to each other and apart, all appear once; keys without the delimiter after
the prefix stay objects.
"""

from __future__ import annotations

from typing import Any

import pytest

GROUPED = ["a/1", "a/2", "a/3", "b/1", "b/2", "c", "d/x/1", "d/y", "e/1"]


@pytest.mark.rule("storage.bindings.list-delimited-prefixes-once")
def test_each_delimited_prefix_appears_once(bindings: Any, names: Any) -> None:
    """Five groups (three of several keys) and one plain key: one prefix per group, in order."""
    base = names.key("/")
    for tail in GROUPED:
        bindings.put(base + tail, b"g").value()
    page = bindings.list(prefix=base, delimiter="/").value()
    prefixes = list(page.get("delimitedPrefixes") or [])
    assert not page.get("truncated"), page
    assert len(prefixes) == len(set(prefixes)), f"a prefix listed twice: {prefixes}"
    groups = [p.removeprefix(base).rstrip("/") for p in prefixes]
    assert groups == ["a", "b", "d", "e"], prefixes
    assert [o["key"] for o in page["objects"]] == [base + "c"], page["objects"]
