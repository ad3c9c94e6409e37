"""list() pages: fewer than `limit` (with a cursor) rather than an error when metadata is large."""

from __future__ import annotations

from typing import Any

import pytest

OBJECTS = 48
METADATA_BYTES = 1500  # per object: ~72 KB in all, more than a list page is expected to carry


@pytest.mark.rule("storage.bindings.list-limit-reduced")
def test_list_with_much_metadata_pages_without_error(bindings: Any, names: Any) -> None:
    """Listing objects with large metadata never fails; pages stay within limit, cursors resume,
    and the pages together hold every key once, in order."""
    prefix = names.key("/")
    keys = [f"{prefix}{i:03d}" for i in range(OBJECTS)]
    for key in keys:
        bindings.put(key, b"m", customMetadata={"pad": "p" * METADATA_BYTES}).value()
    seen = _list_all(bindings, {"prefix": prefix, "limit": OBJECTS}, len(keys))
    assert seen == keys


@pytest.mark.rule("storage.bindings.list-limit-reduced")
def test_page_ending_early_loses_no_smaller_object(bindings: Any, names: Any) -> None:
    """Objects of 1.6 KB of metadata, then one of 2 KB, then small ones: wherever a page ends
    early, the next page resumes at the first object it did not return, so every key is listed
    once and in order (a page must not skip an object that did not fit and go on with smaller
    ones after it)."""
    prefix = names.key("/")
    sizes = [1600] * 40 + [2000] + [10] * 8
    keys = [f"{prefix}{i:03d}" for i in range(len(sizes))]
    for key, size in zip(keys, sizes, strict=True):
        bindings.put(key, b"m", customMetadata={"pad": "p" * size}).value()
    seen = _list_all(bindings, {"prefix": prefix, "limit": 100}, len(keys))
    assert seen == keys


def _list_all(bindings: Any, options: dict[str, Any], count: int) -> list[str]:
    """Every key of the listing with metadata, page by page through the cursors; no page holds
    more than `limit` objects, and a truncated page carries a cursor."""
    seen: list[str] = []
    cursor = None
    for _ in range(count + 1):
        page_options = {**options, "include": ["customMetadata"]}
        if cursor:
            page_options["cursor"] = cursor
        page = bindings.list(**page_options).value()
        assert len(page["objects"]) <= options["limit"]
        seen += [o["key"] for o in page["objects"]]
        if not page["truncated"]:
            break
        cursor = page.get("cursor")
        assert cursor, f"a truncated page without a cursor: {sorted(page)}"
    return seen
