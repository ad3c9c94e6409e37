"""Every table row and numbered item of the spec, and every dated behaviour, has a rule.

The spec files live next to this checkout (`../shared/spec/`); where they are absent (an installed
copy, a fork) the test is skipped rather than failing on a missing file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.model.catalog import load_catalog

# EDGE_CONFORMANCE_SPEC_DIR points at the spec files from a checkout elsewhere (a worktree)
SPEC_DIR = Path(
    os.environ.get("EDGE_CONFORMANCE_SPEC_DIR")
    or Path(__file__).resolve().parents[1].parent / "shared" / "spec"
)
SPEC = SPEC_DIR / "interface-spec.md"
DATES = SPEC_DIR / "dates.md"

# (section, row or item) -> why no rule is needed. Only pure "not shown" placeholders qualify.
EXEMPT: dict[tuple[str, str | int], str] = {
    (
        "What the service does",
        4,
    ): "placeholder: the full operation set and field list are not shown",
    ("Authentication", 3): "placeholder: gateway authentication is not shown",
}

HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
ITEM = re.compile(r"^(\d+)\.\s")
SEPARATOR = re.compile(r"^\|?\s*:?-{3,}")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _row_keys(rows: list[list[str]]) -> Iterator[str]:
    """Each row's key: its first cell, or the shortest run of leading cells telling it apart."""
    for row in rows:
        for width in range(1, len(row) + 1):
            key = row[:width]
            if sum(1 for other in rows if other[:width] == key) == 1:
                break
        yield " | ".join(key)


def spec_anchors(text: str) -> set[tuple[str, str | int]]:
    """(section, row key) for every table body row and (section, number) for numbered items."""
    anchors: set[tuple[str, str | int]] = set()
    section = ""
    table: list[list[str]] = []
    rows_by_section: dict[str, list[list[str]]] = {}
    lines = [*text.splitlines(), ""]
    for index, line in enumerate(lines):
        heading = HEADING.match(line)
        if heading:
            section = heading.group(1)
            continue
        if line.lstrip().startswith("|"):
            nxt = lines[index + 1] if index + 1 < len(lines) else ""
            if SEPARATOR.match(line.strip()) or SEPARATOR.match(nxt.strip()):
                continue  # the separator, or the header row just above it
            table.append(_cells(line))
            continue
        if table:
            rows_by_section.setdefault(section, []).extend(table)
            table = []
        item = ITEM.match(line)
        if item:
            anchors.add((section, int(item.group(1))))
    for name, rows in rows_by_section.items():
        anchors.update((name, key) for key in _row_keys(rows))
    return anchors


def dates_rows(text: str) -> set[str]:
    """The Behaviour cell of every row of the dates table."""
    behaviours = set()
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if not line.startswith("|") or SEPARATOR.match(line):
            continue
        nxt = lines[index + 1] if index + 1 < len(lines) else ""
        if SEPARATOR.match(nxt):
            continue
        behaviours.add(_cells(line)[0])
    return behaviours


def _references(source: str) -> set[tuple[str, str | int]]:
    refs: set[tuple[str, str | int]] = set()
    for rule in load_catalog().rules.values():
        spec = rule.spec
        if spec.get("source", "interface-spec.md") != source:
            continue
        refs.add((spec["section"], spec["row"] if "row" in spec else spec["item"]))
    return refs


def _require(path: Path) -> str:
    if not path.is_file():
        pytest.skip(f"{path} is absent in this checkout")
    return path.read_text(encoding="utf-8")


def test_every_spec_row_and_item_has_a_rule() -> None:
    """Every table row and numbered item of interface-spec.md is named by some rule's spec."""
    anchors = spec_anchors(_require(SPEC))
    orphans = sorted(anchors - _references("interface-spec.md") - set(EXEMPT), key=str)
    assert not orphans, "spec rows/items without a rule:\n" + "\n".join(map(str, orphans))


def test_spec_references_exist() -> None:
    """Every interface-spec reference in the catalog names a real row or item."""
    anchors = spec_anchors(_require(SPEC))
    dangling = sorted(_references("interface-spec.md") - anchors, key=str)
    assert not dangling, "rules point at rows/items the spec lacks:\n" + "\n".join(
        map(str, dangling)
    )


def test_exemptions_are_still_needed() -> None:
    """An exemption for a row that is gone or now has a rule is removed."""
    anchors = spec_anchors(_require(SPEC))
    stale = sorted((set(EXEMPT) - anchors) | (set(EXEMPT) & _references("interface-spec.md")))
    assert not stale, f"stale exemptions: {stale}"


def test_every_dated_behaviour_has_a_rule() -> None:
    """Every row of the dates.md table is named by a rule with `source: dates.md`."""
    rows = dates_rows(_require(DATES))
    referenced = {str(key) for _, key in _references("dates.md")}
    orphans = sorted(rows - referenced)
    assert not orphans, "dates.md rows without a rule:\n" + "\n".join(orphans)


def test_dates_references_exist() -> None:
    """Every dates.md row reference in the catalog names a real row of the table."""
    rows = dates_rows(_require(DATES))
    refs = {
        str(key)
        for section, key in _references("dates.md")
        if section != "Other facts" and isinstance(key, str)
    }
    dangling = sorted(refs - rows)
    assert not dangling, "rules point at dates.md rows that do not exist:\n" + "\n".join(dangling)
