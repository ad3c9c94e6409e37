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


@pytest.mark.rule("storage.bindings.list-delimited-prefixes-once")
def test_key_starting_with_the_delimiter_rolls_up(bindings: Any, names: Any) -> None:
    """No prefix, a key whose first character is the delimiter: the part between the (empty)
    prefix and the delimiter is empty, so the key rolls up into the delimited prefix "/" and is
    not listed as an object (an implementation that only looks for the delimiter past the first
    character lists it as a plain key). The key sits outside the worker's prefix, so the test
    deletes it itself."""
    key = "/" + names.key("lead")
    bindings.put(key, b"d").value()
    try:
        prefixes: list[str] = []
        keys: list[str] = []
        cursor = None
        for _ in range(20):
            options: dict[str, Any] = {"delimiter": "/"}
            if cursor:
                options["cursor"] = cursor
            page = bindings.list(**options).value()
            prefixes += [str(p) for p in page.get("delimitedPrefixes") or []]
            keys += [str(o["key"]) for o in page.get("objects") or []]
            cursor = page.get("cursor")
            if not page.get("truncated"):
                break
        assert "/" in prefixes, f"no delimited prefix '/' for {key!r}: {prefixes[:20]}"
        assert key not in keys, f"{key!r} listed as an object past the delimiter: {keys[:20]}"
    finally:
        bindings.delete(key).value()
