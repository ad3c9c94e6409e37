"""What a verdict covers: the surfaces a run actually judged and the ones it could not.

A target that offers only the bindings can pass every rule it was asked about and be
"certified", while most of the catalog was N/A for it. The verdict must say so, or a reader
takes a bindings-only certificate for a certificate of the whole service.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from conformance.report.load import Results
from conformance.results import RAN


@dataclass(frozen=True)
class Scope:
    checked: tuple[str, ...]  # "area/surface" with at least one rule judged
    not_checked: tuple[str, ...]  # "area/surface" in the catalog with none judged

    @property
    def complete(self) -> bool:
        return bool(self.checked) and not self.not_checked

    def phrase(self) -> str:
        """`all 8 surfaces` or `3 of 8 surfaces (storage/s3, ...); not checked: ...`."""
        total = len(self.checked) + len(self.not_checked)
        if self.complete:
            return f"all {total} surfaces" if total > 1 else f"its only surface, {self.checked[0]}"
        if not self.checked:
            return f"none of {total} surfaces"
        return (
            f"{len(self.checked)} of {total} surfaces ({', '.join(self.checked)}); "
            f"not checked: {', '.join(self.not_checked)}"
        )


def _surface(rule: dict[str, Any]) -> str:
    return f"{rule.get('area', '?')}/{rule.get('surface', '?')}"


def catalog_surfaces() -> tuple[str, ...]:
    """Every area/surface of the installed catalog: what a full run would judge.

    A run with `--area` or `--rule` records only the rules it selected, so the results file
    alone cannot tell what was left out. Empty when the catalog cannot be loaded (a report
    rendered without the suite's data): the scope then rests on the results file alone.
    """
    from conformance.model.catalog import CatalogError, load_catalog

    with contextlib.suppress(CatalogError, OSError):
        return tuple(sorted({f"{r.area}/{r.surface}" for r in load_catalog().rules.values()}))
    return ()


def run_scope(doc: Results, universe: Iterable[str] | None = None) -> Scope:
    """Surfaces judged by this run, from the rule statuses recorded in results.json.

    `universe` (default: the installed catalog's surfaces) adds the surfaces a selection left
    out entirely, so `--area gateway` reads as "1 of 8 surfaces", not "all 1".
    """
    judged: dict[str, bool] = dict.fromkeys(
        catalog_surfaces() if universe is None else universe, False
    )
    for rule in doc.get("rules", []):
        name = _surface(rule)
        judged[name] = judged.get(name, False) or str(rule.get("status")) in RAN
    return Scope(
        checked=tuple(sorted(n for n, ok in judged.items() if ok)),
        not_checked=tuple(sorted(n for n, ok in judged.items() if not ok)),
    )
