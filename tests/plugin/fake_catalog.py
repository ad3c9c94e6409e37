"""A tiny stand-in catalog for plugin tests, handed to the plugin by a pytester conftest.

Inner runs find it through `pytest_conformance_catalog`, so plugin tests do not depend on the
real catalog's contents.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class FakeRule:
    id: str
    area: str = "storage"
    surface: str = "s3"
    operation: str = "Op"
    title: str = "a fake rule"
    level: str = "MUST"
    since: dt.date | None = None
    until: dt.date | None = None
    replaces: str | None = None
    limit: str | None = None
    compat: Any = None
    testability: str = "black-box"
    reason: str | None = None
    spec: dict[str, Any] = field(default_factory=dict)
    decision: str | None = None

    def in_force(self, as_of: dt.date) -> bool:
        return (self.since is None or self.since <= as_of) and (
            self.until is None or as_of < self.until
        )


class FakeCatalog:
    def __init__(self, rules: list[FakeRule], limits: dict[str, list[tuple[str, Any]]]) -> None:
        self.rules = {rule.id: rule for rule in rules}
        self.limits = limits
        self.hash = "fake-catalog"

    def get(self, rule_id: str) -> FakeRule:
        return self.rules[rule_id]

    def limits_at(self, as_of: dt.date) -> dict[str, Any]:
        values = {}
        for key, steps in self.limits.items():
            for since, value in steps:
                if dt.date.fromisoformat(since) <= as_of:
                    values[key] = value
        return values


DEFAULT_RULES: list[dict[str, Any]] = [
    {"id": "storage.put.ok"},
    {"id": "storage.delete.limit-old", "until": "2022-07-01"},
    {"id": "storage.delete.limit-new", "since": "2022-07-01"},
    {"id": "storage.ref.internal", "testability": "reference-only", "reason": "internal"},
    {"id": "storage.never", "testability": "not-testable", "reason": "needs 5 TiB"},
    {"id": "logs.create.ok", "area": "logs", "surface": "rules-api"},
    {"id": "logs.untested", "area": "logs", "surface": "rules-api"},
    {"id": "gateway.chain.id", "area": "gateway", "surface": "jsonrpc", "level": "SHOULD"},
]
DEFAULT_LIMITS = {"delete-objects-max-keys": [("2022-04-04", 128), ("2022-07-01", 1000)]}


def build(rules: list[dict[str, Any]], limits: dict[str, list[Any]]) -> FakeCatalog:
    made = []
    for spec in rules:
        values = dict(spec)
        for key in ("since", "until"):
            if values.get(key):
                values[key] = dt.date.fromisoformat(values[key])
        made.append(FakeRule(**values))
    return FakeCatalog(made, {k: [tuple(step) for step in v] for k, v in limits.items()})


def conftest_source(
    rules: list[dict[str, Any]] | None = None, limits: dict[str, list[Any]] | None = None
) -> str:
    """Source of a conftest that makes the plugin use a fake catalog of `rules`."""
    spec = json.dumps({"rules": rules or DEFAULT_RULES, "limits": limits or DEFAULT_LIMITS})
    return (
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import fake_catalog\n"
        f"SPEC = json.loads({spec!r})\n"
        "def pytest_conformance_catalog(config):\n"
        "    return fake_catalog.build(SPEC['rules'], SPEC['limits'])\n"
    )
