"""list() and `include`: honoured under r2_list_honor_include (flag, or compat date 2022-07-14).

The flag rule names the flag itself; which of the others applies is decided by the run's
--compat-date / --compat-flag (the catalog's `compat` field): run once at a compat date before
2022-07-14 to check the flag-off behaviour. The default date is contested: the spec says
2022-07-14, the runtime docs 2022-08-04; compat dates between are a SHOULD rule of their own.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

FLAG = "r2_list_honor_include"
RUNTIME_DEFAULT = dt.date(2022, 8, 4)  # the runtime docs' default date (dates.md disagreements)
CUSTOM = {"shade": "ochre"}
HTTP = {"contentType": "text/x-conformance"}


def _listed(bindings: Any, names: Any, include: list[str] | None) -> dict[str, Any]:
    """The list() entry of one fresh object that has both kinds of metadata."""
    key = names.key()
    bindings.put(key, b"listed", customMetadata=CUSTOM, httpMetadata=HTTP).value()
    options: dict[str, Any] = {"prefix": key}
    if include is not None:
        options["include"] = include
    page = bindings.list(**options).value()
    assert [o["key"] for o in page["objects"]] == [key], page
    entry: dict[str, Any] = page["objects"][0]
    return entry


def _absent(entry: dict[str, Any], kind: str) -> bool:
    return entry.get(kind) in (None, {})


def _check_honoured(bindings: Any, names: Any) -> None:
    only_custom = _listed(bindings, names, ["customMetadata"])
    assert only_custom.get("customMetadata") == CUSTOM
    assert _absent(only_custom, "httpMetadata"), only_custom
    only_http = _listed(bindings, names, ["httpMetadata"])
    assert only_http.get("httpMetadata", {}).get("contentType") == HTTP["contentType"]
    assert _absent(only_http, "customMetadata"), only_http
    for both in (["httpMetadata", "customMetadata"], ["customMetadata", "httpMetadata"]):
        entry = _listed(bindings, names, both)  # every kind named, in either order
        assert entry.get("customMetadata") == CUSTOM, (both, entry)
        assert entry.get("httpMetadata", {}).get("contentType") == HTTP["contentType"], entry
    neither = _listed(bindings, names, None)
    assert _absent(neither, "customMetadata") and _absent(neither, "httpMetadata"), neither


@pytest.mark.rule("storage.bindings.list-include-honored")
def test_include_honoured_with_flag(bindings: Any, names: Any) -> None:
    """With the flag named by the worker, list() returns exactly the metadata kinds include names,
    whatever the compatibility date."""
    _check_honoured(bindings.with_flags(FLAG), names)


@pytest.mark.rule("storage.bindings.list-include-default-date")
def test_include_honoured_from_compat_date(bindings: Any, names: Any) -> None:
    """From compatibility date 2022-08-04, without naming the flag, include is honoured."""
    if FLAG in bindings.compat_flags:
        pytest.skip(f"N/A: the flag {FLAG} is named explicitly; this rule is about the date")
    _check_honoured(bindings, names)


@pytest.mark.rule("storage.bindings.list-include-contested-window")
def test_include_honoured_in_the_contested_window(bindings: Any, names: Any) -> None:
    """Compat dates 2022-07-14 to 2022-08-03 without the flag: include honoured (the spec)."""
    if FLAG in bindings.compat_flags:
        pytest.skip(f"N/A: the flag {FLAG} is named explicitly; this rule is about the date")
    if bindings.compat_date >= RUNTIME_DEFAULT:
        pytest.skip(f"N/A: compat date {bindings.compat_date} is past the contested window")
    _check_honoured(bindings, names)


@pytest.mark.rule("storage.bindings.list-without-flag")
def test_include_ignored_without_flag(bindings: Any, names: Any) -> None:
    """With the flag off, list() returns both metadata kinds whatever include says."""
    for include in (["customMetadata"], None):
        entry = _listed(bindings, names, include)
        assert entry.get("customMetadata") == CUSTOM, entry
        assert entry.get("httpMetadata", {}).get("contentType") == HTTP["contentType"], entry


@pytest.mark.rule("storage.bindings.list-include-honored")
@pytest.mark.parametrize("kind", ["customMetadata", "httpMetadata"])
def test_include_holds_on_every_page(bindings: Any, names: Any, kind: str) -> None:
    """include with prefix, delimiter, limit and cursor: every object entry of every page
    carries the kind include names and not the other, while the delimiter still rolls a
    group up (a page after the first does not fall back to another include)."""
    flagged = bindings.with_flags(FLAG)
    base = names.key("/")
    keys = [base + tail for tail in ("a", "b", "g/1", "g/2", "c", "d")]
    for key in keys:
        flagged.put(key, b"i", customMetadata=CUSTOM, httpMetadata=HTTP).value()
    other = "httpMetadata" if kind == "customMetadata" else "customMetadata"
    entries: list[dict[str, Any]] = []
    prefixes: list[str] = []
    options: dict[str, Any] = {"prefix": base, "delimiter": "/", "limit": 2, "include": [kind]}
    for _ in range(10):
        page = flagged.list(**options).value()
        entries += page["objects"]
        prefixes += list(page.get("delimitedPrefixes") or [])
        if not page.get("truncated"):
            break
        options["cursor"] = page.get("cursor")
    assert [e["key"] for e in entries] == [base + t for t in ("a", "b", "c", "d")], entries
    assert prefixes == [base + "g/"], prefixes
    for entry in entries:
        assert not _absent(entry, kind), f"page entry without {kind}: {entry}"
        assert _absent(entry, other), f"page entry with {other} (include {kind}): {entry}"
