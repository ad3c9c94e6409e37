"""Each rule explained: where the spec says it, since when, on what authority, which test
decides it, and which other implementations fail it and why (the peer verdict ledgers).

Everything but the spec row text and the ledgers comes from the results file; those two are
read when they can be found (a checkout, or paths given) and left out, said so, when not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from conformance import settings
from conformance.report.spec_links import SPEC_BASE_ENV, SPEC_FILE

LEDGERS_ENV = settings.LEDGERS.name
# the checkout's ledgers, when the package runs from one (they are not package data)
CHECKOUT_LEDGERS = Path(__file__).resolve().parents[2] / "fixtures" / "peers" / "verdicts"
CHECKOUT_SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec"


@dataclass
class Explanation:
    spec_ref: str
    spec_row: str | None  # the spec's own line, when the spec file is at hand
    window: str
    authority: list[str]  # decision and public source lines
    tests: list[dict[str, str]]  # nodeid and docstring of the deciding tests
    peers: list[tuple[str, str]] = field(default_factory=list)  # (implementation, why)


def default_ledgers_dir() -> Path | None:
    """$CONFORMANCE_LEDGERS, else the checkout's fixtures/peers/verdicts; None when neither."""
    explicit = settings.path(settings.LEDGERS)
    if explicit is not None:
        return explicit
    return CHECKOUT_LEDGERS if CHECKOUT_LEDGERS.is_dir() else None


def load_ledgers(folder: Path | None) -> dict[str, dict[str, str]]:
    """Implementation -> {rule id: why it fails} from `folder/*.yaml` (`fails:` maps)."""
    if folder is None or not folder.is_dir():
        return {}
    from conformance import yaml_data

    found: dict[str, dict[str, str]] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = yaml_data.load(path.read_text(encoding="utf-8")) or {}
        except (OSError, ValueError):
            continue
        fails = data.get("fails") if isinstance(data, dict) else None
        if isinstance(fails, dict):
            found[path.stem] = {str(k): str(v) for k, v in fails.items()}
    return found


def spec_dir(spec_base: str | None) -> Path | None:
    """A local folder holding the spec file: the file: base, $CONFORMANCE_SPEC_BASE, the
    checkout's ../shared/spec, or the working directory's ../shared/spec."""
    for base in (spec_base, os.environ.get(SPEC_BASE_ENV)):
        if base and base.startswith("file:"):
            folder = Path(unquote(urlsplit(base).path))
            if (folder / SPEC_FILE).is_file():
                return folder
    for folder in (CHECKOUT_SPEC, Path.cwd().parent / "shared" / "spec"):
        if (folder / SPEC_FILE).is_file():
            return folder
    return None


@lru_cache(maxsize=8)
def _spec_lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8").splitlines())
    except OSError:
        return ()


def spec_row(folder: Path | None, spec: Any) -> str | None:
    """The line of the spec a rule's `spec` reference names: the table row (or line) that
    starts with its row, inside its section; None when the file or the place is not found."""
    if folder is None or not isinstance(spec, dict) or not spec.get("section"):
        return None
    name = str(spec.get("source") or spec.get("file") or SPEC_FILE)
    lines = _spec_lines(str(folder / name))
    section, row = str(spec["section"]).strip(), str(spec.get("row") or "").strip()
    headings = [n for n, line in enumerate(lines) if line.startswith("#")]
    start = next((n for n in headings if lines[n].lstrip("#").strip() == section), None)
    if start is None:
        return None
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    body: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("#") and len(line) - len(line.lstrip("#")) <= level:
            break
        body.append(line)
    if not row:
        text = " ".join(line.strip() for line in body if line.strip())
        return text[:400] or None
    cells = [ln for ln in body if ln.startswith("|") and ln.strip("| ").startswith(row)]
    hits = cells or [ln for ln in body if row in ln]
    return hits[0].strip()[:500] if hits else None


def explain(
    rule: dict[str, Any],
    cases: list[dict[str, Any]],
    ledgers: dict[str, dict[str, str]],
    folder: Path | None,
    catalog_source: Any = None,
) -> Explanation:
    from conformance.report.spec_links import spec_text

    since, until = rule.get("since"), rule.get("until")
    window = f"in force {since or 'always'} → {until or 'now'}"
    authority = []
    if rule.get("decision"):
        authority.append(f"decision: {rule['decision']} (decisions.md)")
    source = rule.get("source") or catalog_source
    if isinstance(source, dict) and source:
        authority.append("public source: " + "; ".join(f"{k}: {v}" for k, v in source.items()))
    elif source:
        authority.append(f"public source: {source}")
    if not authority:
        authority.append("the spec itself (no decision needed)")
    tests: dict[str, str] = {}
    for case in cases:
        tests.setdefault(str(case.get("nodeid")), str(case.get("doc") or ""))
    peers = [(name, fails[str(rule.get("id"))]) for name, fails in sorted(ledgers.items())
             if str(rule.get("id")) in fails]  # fmt: skip
    return Explanation(
        spec_ref=spec_text(rule.get("spec")), spec_row=spec_row(folder, rule.get("spec")),
        window=window, authority=authority,
        tests=[{"nodeid": k, "doc": v} for k, v in tests.items()], peers=peers,
    )  # fmt: skip
