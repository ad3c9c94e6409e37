"""Links from a rule to the place in the spec that states it.

The catalog's `spec` field names a section (a Markdown heading) and a row; headings become
anchors the way GitHub and most Markdown renderers slug them, so one base URL serves all.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conformance import settings

SPEC_FILE = "interface-spec.md"
DECISIONS_FILE = "decisions.md"
SPEC_BASE_ENV = settings.SPEC_BASE.name


def default_spec_base() -> str | None:
    """Where spec links point: $CONFORMANCE_SPEC_BASE, else the checkout's ../shared/spec.

    Shared by the report and the plugin's allure links, so both point at the same place.
    """
    explicit = settings.text(settings.SPEC_BASE)
    if explicit:
        return explicit
    local = Path.cwd().parent / "shared" / "spec"
    return local.resolve().as_uri() if (local / SPEC_FILE).exists() else None


def slug(heading: str) -> str:
    """GitHub-style anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def spec_text(spec: Any) -> str:
    """Human form of a `spec` reference: `Section — row`."""
    if not isinstance(spec, dict):
        return str(spec or "")
    parts = [str(spec[k]) for k in ("section", "row", "item") if spec.get(k)]
    text = " — ".join(parts)
    return f"{spec['source']}: {text}" if spec.get("source") else text


def spec_href(base: str | None, spec: Any) -> str | None:
    """URL of the section, or None when no spec location is known to the renderer."""
    if not base or not isinstance(spec, dict) or not spec.get("section"):
        return None
    doc = spec.get("source") or spec.get("file") or SPEC_FILE  # catalog: source: dates.md
    return f"{base.rstrip('/')}/{doc}#{slug(str(spec['section']))}"


def decision_href(base: str | None, decision: str | None) -> str | None:
    """URL of the decisions.md heading a SHOULD rule rests on."""
    if not base or not decision:
        return None
    return f"{base.rstrip('/')}/{DECISIONS_FILE}#{slug(decision)}"
