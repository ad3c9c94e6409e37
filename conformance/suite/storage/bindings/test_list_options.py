"""list() options combined: limit, cursor, startAfter, prefix and delimiter, across pages.

The provider's Workers R2 reference (R2ListOptions): `limit` defaults to 1000, at most 1000;
`prefix` keeps keys that start with it; `cursor` continues where a page stopped; `startAfter`
excludes keys less than or equal to it; `delimiter` rolls keys up into `delimitedPrefixes`; a page
with more to come is `truncated` with a `cursor` (R2Objects). Each check here pages a small set of
keys with several options at once, so that an option dropped or misread on one page shows.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

KEYS = ["a", "b", "c", "d", "e"]
# groups under the prefix: a/ (3 keys), b/ (2 keys), c (plain), d/ (1 key), e (plain)
GROUPED = ["a/1", "a/2", "a/3", "b/1", "b/2", "c", "d/1", "e"]


def _put_all(bindings: Any, base: str, tails: list[str]) -> list[str]:
    keys = [base + tail for tail in tails]
    for key in keys:
        bindings.put(key, b"k").value()
    return keys


def _pages(bindings: Any, **options: Any) -> list[dict[str, Any]]:
    """Every page of a listing, following cursors (at most 20 pages)."""
    pages: list[dict[str, Any]] = []
    cursor = None
    for _ in range(20):
        page = dict(options, cursor=cursor) if cursor else dict(options)
        got: dict[str, Any] = bindings.list(**page).value()
        pages.append(got)
        if not got.get("truncated"):
            return pages
        cursor = got.get("cursor")
        assert cursor, f"a truncated page without a cursor: {got}"
    raise AssertionError(f"more than 20 pages: {pages[-1]}")


def _keys(page: dict[str, Any]) -> list[str]:
    return [str(o["key"]) for o in page.get("objects") or []]


@pytest.mark.rule("storage.bindings.list-limit-reduced")
def test_limit_pages_resume_with_cursor(bindings: Any, names: Any) -> None:
    """limit 2 over five keys: pages of at most two, each truncated but the last, every key once,
    in order; the last page is not truncated and has no cursor to follow."""
    base = names.key("/")
    keys = _put_all(bindings, base, KEYS)
    pages = _pages(bindings, prefix=base, limit=2)
    assert [len(_keys(p)) for p in pages] == [2, 2, 1], pages
    assert [k for p in pages for k in _keys(p)] == keys
    assert [bool(p.get("truncated")) for p in pages] == [True, True, False], pages
    assert not pages[-1].get("cursor"), pages[-1]


@pytest.mark.rule("storage.bindings.list-limit-reduced")
@pytest.mark.parametrize("limit", [1, 1000], ids=["one", "max"])
def test_limit_bounds_are_accepted(bindings: Any, names: Any, limit: int) -> None:
    """limit 1 and 1000 (the bounds the reference names) are accepted: limit 1 gives one key and
    a cursor, 1000 every key of a small prefix, untruncated."""
    base = names.key("/")
    keys = _put_all(bindings, base, KEYS[:3])
    page = bindings.list(prefix=base, limit=limit).value()
    if limit == 1:
        assert _keys(page) == keys[:1] and page.get("truncated") and page.get("cursor"), page
    else:
        assert _keys(page) == keys and not page.get("truncated"), page


@pytest.mark.rule("storage.bindings.list-limit-default")
def test_limit_defaults_to_1000(bindings: Any, names: Any) -> None:
    """Without limit, 120 keys without metadata come in one page, untruncated: limit defaults to
    1000 (R2ListOptions), and 120 bare keys are not so much data that a page must end early (a
    target with a default page of 100 truncates it: miniflare does, hence SHOULD)."""
    base = names.key("/")
    keys = _put_all(bindings, base, [f"{i:03d}" for i in range(120)])
    page = bindings.list(prefix=base).value()
    assert not page.get("truncated"), f"{len(_keys(page))} keys, truncated: {page.get('cursor')}"
    assert _keys(page) == keys, f"{len(_keys(page))} of {len(keys)} keys listed"


@pytest.mark.rule("storage.bindings.list-limit-reduced")
def test_start_after_excludes_keys_up_to_it(bindings: Any, names: Any) -> None:
    """startAfter excludes keys less than or equal to it, with a prefix and across pages."""
    base = names.key("/")
    keys = _put_all(bindings, base, KEYS)
    page = bindings.list(prefix=base, startAfter=keys[1]).value()
    assert _keys(page) == keys[2:], page
    pages = _pages(bindings, prefix=base, startAfter=keys[0], limit=2)
    assert [k for p in pages for k in _keys(p)] == keys[1:], pages


@pytest.mark.rule("storage.bindings.list-limit-reduced")
def test_prefix_keeps_only_its_keys(bindings: Any, names: Any) -> None:
    """Keys beside the prefix (one sorting before it, one after) are not listed."""
    base = names.key("/")
    _put_all(bindings, base, ["m/1", "m/2", "ma", "l"])
    page = bindings.list(prefix=base + "m/").value()
    assert _keys(page) == [base + "m/1", base + "m/2"], page


@pytest.mark.rule("storage.bindings.list-delimited-prefixes-once")
@pytest.mark.parametrize("limit", [1, 2, 3], ids=["limit-1", "limit-2", "limit-3"])
def test_delimited_pages_list_each_prefix_once(bindings: Any, names: Any, limit: int) -> None:
    """prefix + delimiter + limit + cursor: over all pages, each group is one delimited prefix,
    listed once (a page that ends inside a group does not list it again on the next page), the
    plain keys are objects, entries per page stay within limit, and nothing is lost."""
    base = names.key("/")
    _put_all(bindings, base, GROUPED)
    pages = _pages(bindings, prefix=base, delimiter="/", limit=limit)
    prefixes = [str(p) for page in pages for p in page.get("delimitedPrefixes") or []]
    objects = [k for page in pages for k in _keys(page)]
    for page in pages:
        entries = len(_keys(page)) + len(page.get("delimitedPrefixes") or [])
        assert entries <= limit, page
    assert prefixes == [base + "a/", base + "b/", base + "d/"], pages
    assert objects == [base + "c", base + "e"], pages


@pytest.mark.rule("storage.bindings.list-delimited-prefixes-once")
def test_delimiter_with_start_after_inside_a_group(bindings: Any, names: Any) -> None:
    """startAfter a key inside a group: the rest of that group still rolls up into its prefix,
    the later groups and keys follow, nothing before startAfter."""
    base = names.key("/")
    _put_all(bindings, base, GROUPED)
    page = bindings.list(prefix=base, delimiter="/", startAfter=base + "b/1").value()
    assert list(page.get("delimitedPrefixes") or []) == [base + "b/", base + "d/"], page
    assert _keys(page) == [base + "c", base + "e"], page


@pytest.mark.rule("storage.bindings.list-delimited-prefixes-once")
def test_multi_character_delimiter(bindings: Any, names: Any) -> None:
    """A delimiter of several characters groups at its whole length (prefix ends with it)."""
    base = names.key("/")
    _put_all(bindings, base, ["x--1", "x--2", "x-y", "z"])
    page = bindings.list(prefix=base, delimiter="--").value()
    assert list(page.get("delimitedPrefixes") or []) == [base + "x--"], page
    assert _keys(page) == [base + "x-y", base + "z"], page


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


@pytest.mark.rule("storage.bindings.list-limit-reduced")
@pytest.mark.parametrize(
    "cursor",
    ["not a cursor!", _b64("[]"), _b64("{}"), _b64('{"after": 5}'), _b64("\xff\xfe")],
    ids=["text", "b64-array", "b64-empty-object", "b64-number", "b64-not-json"],
)
def test_invalid_cursor_is_no_internal_error(bindings: Any, names: Any, cursor: str) -> None:
    """A cursor the target never issued is never an internal error (the spec's Errors table:
    "invalid list cursor: descriptive error, not InternalError"). Only that much is asserted:
    whether the binding refuses it or lists from somewhere is not stated for the binding (the
    miniflare peer answers an empty page)."""
    outcome = bindings.list(prefix=names.key("/"), cursor=cursor)
    if outcome.error is not None:
        outcome.refused()
    else:
        assert outcome.status == 200, outcome.describe()
