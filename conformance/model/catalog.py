"""The rule catalog: load, validate and query `conformance/catalog` (the source of truth).

The catalog is data shipped as package data, so the suite runs from any directory. Everything is
validated on load, because a broken catalog silently un-tests rules; problems raise
`CatalogError` naming the file and the rule id.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import jsonschema
import yaml

from conformance import yaml_data

PACKAGE = "conformance.catalog"
RULES_DIR = "rules"
LIMITS_FILE = "limits.yaml"
SCHEMA_FILE = "rule.schema.json"


class CatalogError(ValueError):
    """The catalog files are inconsistent or malformed."""


@dataclasses.dataclass(frozen=True)
class Rule:
    """One checkable claim of the spec, with the dates it is in force."""

    id: str
    area: str
    surface: str
    operation: str
    title: str
    level: str
    since: dt.date | None
    until: dt.date | None
    replaces: str | None
    limit: str | None
    compat: Mapping[str, Any] | None
    testability: str
    reason: str | None
    spec: Mapping[str, Any]
    decision: str | None
    file: str = dataclasses.field(default="", compare=False)
    # the provider's public page a rule rests on beyond the spec (None: the spec's files say it)
    source: Mapping[str, Any] | None = None

    def __hash__(self) -> int:
        return hash(self.id)

    def in_force(self, as_of: dt.date) -> bool:
        """True when `as_of` falls in the half-open window [since, until)."""
        if self.since is not None and as_of < self.since:
            return False
        return self.until is None or as_of < self.until

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (dates as ISO strings), without the source file name."""
        compat = None
        if self.compat is not None:
            compat = {k: _iso(v) for k, v in self.compat.items()}
        return {
            "id": self.id,
            "area": self.area,
            "surface": self.surface,
            "operation": self.operation,
            "title": self.title,
            "level": self.level,
            "since": _iso(self.since),
            "until": _iso(self.until),
            "replaces": self.replaces,
            "limit": self.limit,
            "compat": compat,
            "testability": self.testability,
            "reason": self.reason,
            "spec": dict(self.spec),
            "decision": self.decision,
            "source": dict(self.source) if self.source is not None else None,
        }


@dataclasses.dataclass(frozen=True)
class LimitStep:
    """A limit's value from `since` (None: always) until the next step."""

    since: dt.date | None
    value: Any


@dataclasses.dataclass(frozen=True)
class Catalog:
    """All rules by id, the dated limits, and a hash that identifies this catalog's content."""

    rules: dict[str, Rule]
    limits: dict[str, tuple[LimitStep, ...]]
    hash: str

    def get(self, rule_id: str) -> Rule:
        """The rule with this id; KeyError naming close matches when there is none."""
        try:
            return self.rules[rule_id]
        except KeyError:
            close = difflib.get_close_matches(rule_id, list(self.rules), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"unknown rule id {rule_id!r}{hint}") from None

    def limit_at(self, name: str, as_of: dt.date) -> Any:
        """Value of limit `name` in force at `as_of` (None before its first dated step)."""
        if name not in self.limits:
            close = difflib.get_close_matches(name, list(self.limits), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"unknown limit {name!r}{hint}")
        value: Any = None
        for step in self.limits[name]:
            if step.since is None or step.since <= as_of:
                value = step.value
        return value

    def limits_at(self, as_of: dt.date) -> dict[str, Any]:
        """Every limit's value at `as_of`, by name (dashes kept)."""
        return {name: self.limit_at(name, as_of) for name in self.limits}

    def select(
        self,
        area: str | Iterable[str] | None = None,
        surface: str | Iterable[str] | None = None,
        prefixes: Sequence[str] | None = None,
        as_of: dt.date | None = None,
    ) -> list[Rule]:
        """Rules matching every given filter (and in force at `as_of` if given), by id."""
        areas = _as_set(area)
        surfaces = _as_set(surface)
        chosen = []
        for rule in self.rules.values():
            if areas is not None and rule.area not in areas:
                continue
            if surfaces is not None and rule.surface not in surfaces:
                continue
            if prefixes and not any(rule.id.startswith(p) for p in prefixes):
                continue
            if as_of is not None and not rule.in_force(as_of):
                continue
            chosen.append(rule)
        return sorted(chosen, key=lambda r: r.id)


def _as_set(value: str | Iterable[str] | None) -> set[str] | None:
    if value is None:
        return None
    return {value} if isinstance(value, str) else set(value)


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


def _jsonable(value: Any) -> Any:
    """YAML dates become ISO strings so that the JSON schema can check them."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return _iso(value)


def _date(text: str | None, where: str) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CatalogError(f"{where}: {text!r} is not a valid date") from None


def _read_yaml(entry: Traversable, name: str) -> Any:
    try:
        return yaml_data.load(entry.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise CatalogError(f"{name}: not valid YAML: {exc}") from None


def _parse_rule(raw: Any, name: str, validator: jsonschema.Draft202012Validator) -> Rule:
    data = _jsonable(raw)
    rid = data.get("id", "<no id>") if isinstance(data, dict) else "<not a mapping>"
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        path = "/".join(str(p) for p in first.absolute_path) or "(rule)"
        raise CatalogError(f"{name}: rule {rid}: {path}: {first.message}")
    where = f"{name}: rule {rid}"
    compat = data["compat"]
    if compat is not None:
        compat = {**compat, "date": _date(compat["date"], where)}
    return Rule(
        id=data["id"],
        area=data["area"],
        surface=data["surface"],
        operation=data["operation"],
        title=data["title"],
        level=data["level"],
        since=_date(data["since"], where),
        until=_date(data["until"], where),
        replaces=data["replaces"],
        limit=data["limit"],
        compat=compat,
        testability=data["testability"],
        reason=data["reason"],
        spec=data["spec"],
        decision=data["decision"],
        file=name,
        source=data.get("source"),
    )


def _parse_limits(raw: Any, name: str) -> dict[str, tuple[LimitStep, ...]]:
    if not isinstance(raw, dict):
        raise CatalogError(f"{name}: expected a mapping of limit name to steps")
    limits: dict[str, tuple[LimitStep, ...]] = {}
    for limit, steps in raw.items():
        where = f"{name}: limit {limit}"
        if not isinstance(steps, list) or not steps:
            raise CatalogError(f"{where}: expected a non-empty list of {{since, value}}")
        parsed = []
        for step in steps:
            if not isinstance(step, dict) or set(step) != {"since", "value"}:
                raise CatalogError(f"{where}: each step is exactly {{since, value}}")
            parsed.append(LimitStep(_date(_iso(step["since"]), where), step["value"]))
        dated = [s.since for s in parsed if s.since is not None]
        if dated != sorted(set(dated)) or any(s.since is None for s in parsed[1:]):
            raise CatalogError(f"{where}: steps must be in increasing date order")
        limits[str(limit)] = tuple(parsed)
    return limits


def check_rules(rules: dict[str, Rule], limits: Mapping[str, object]) -> None:
    """Cross-rule checks the schema cannot express."""
    for rule in rules.values():
        where = f"{rule.file}: rule {rule.id}"
        if not rule.id.startswith(f"{rule.area}."):
            raise CatalogError(f"{where}: id must start with its area {rule.area!r}")
        if rule.since and rule.until and rule.since >= rule.until:
            raise CatalogError(f"{where}: since {rule.since} is not before until {rule.until}")
        if rule.replaces is not None and rule.replaces not in rules:
            raise CatalogError(f"{where}: replaces unknown rule {rule.replaces!r}")
        if rule.limit is not None and rule.limit not in limits:
            raise CatalogError(f"{where}: unknown limit {rule.limit!r}")
        if rule.testability != "black-box" and not rule.reason:
            raise CatalogError(f"{where}: a {rule.testability} rule needs a reason")


def load_catalog_from(root: Traversable) -> Catalog:
    """Load and validate the catalog under `root` (uncached; tests use it on copies)."""
    digest = hashlib.sha256()
    schema_entry = root / SCHEMA_FILE
    schema = json.loads(schema_entry.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    limits_entry = root / LIMITS_FILE
    limits = _parse_limits(_read_yaml(limits_entry, LIMITS_FILE), LIMITS_FILE)
    for entry_name, entry in ((SCHEMA_FILE, schema_entry), (LIMITS_FILE, limits_entry)):
        digest.update(entry_name.encode() + b"\0" + entry.read_bytes() + b"\0")
    rules: dict[str, Rule] = {}
    files = sorted(
        (e for e in (root / RULES_DIR).iterdir() if e.name.endswith(".yaml")), key=lambda e: e.name
    )
    for entry in files:
        name = f"{RULES_DIR}/{entry.name}"
        digest.update(name.encode() + b"\0" + entry.read_bytes() + b"\0")
        raw = _read_yaml(entry, name)
        if raw is None:
            continue
        if not isinstance(raw, list):
            raise CatalogError(f"{name}: expected a list of rules")
        for item in raw:
            rule = _parse_rule(item, name, validator)
            if rule.id in rules:
                raise CatalogError(
                    f"{name}: rule {rule.id}: duplicate id (also in {rules[rule.id].file})"
                )
            rules[rule.id] = rule
    check_rules(rules, limits)
    return Catalog(rules=rules, limits=limits, hash=f"sha256:{digest.hexdigest()}")


@functools.cache
def load_catalog() -> Catalog:
    """The packaged catalog, loaded and validated once per process."""
    return load_catalog_from(resources.files(PACKAGE))
