"""The one behaviour profile: every dated behaviour of the reference reads a field of it.

Fields and their dated values live in data files (`reference_impl/profiles/*.yaml`, one per
surface) so that handlers never compare dates themselves. Any field can be overridden
(`--profile key=value`). Deliberate deviations are not profile fields: they are the typed
`Deviations` of reference_impl/deviations.py, reached as `profile.deviations`, and their
`deviate_*` overrides are routed there.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from reference_impl import yaml_data
from reference_impl.deviations import DeviationError, Deviations, from_overrides, is_deviation_key


class ProfileError(ValueError):
    """An unknown profile field or a value of the wrong type."""


@dataclass(frozen=True)
class FieldSpec:
    name: str
    doc: str
    values: tuple[tuple[dt.date | None, Any], ...]  # (since, value), ascending

    def value_at(self, day: dt.date) -> Any:
        chosen: Any = None
        for since, value in self.values:
            if since is None or since <= day:
                chosen = value
        return chosen


def load_field_specs() -> dict[str, FieldSpec]:
    """Read every `profiles/*.yaml` shipped with the package."""
    specs: dict[str, FieldSpec] = {}
    folder = resources.files("reference_impl") / "profiles"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        data = yaml_data.load(entry.read_text(encoding="utf-8")) or {}
        for name, body in data.items():
            if name in specs:
                raise ProfileError(f"profile field {name!r} defined twice ({entry.name})")
            values = tuple((_as_date(item.get("since")), item["value"]) for item in body["values"])
            specs[name] = FieldSpec(name=name, doc=str(body.get("doc", "")), values=values)
    return specs


def _as_date(value: Any) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value))


def _coerce(spec: FieldSpec, raw: str) -> Any:
    """Parse an override as JSON when it parses (numbers, booleans, null, lists), else a string."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    sample = next((v for _, v in spec.values if v is not None), None)
    if sample is not None and value is not None:
        if isinstance(sample, bool) != isinstance(value, bool):
            raise ProfileError(f"profile field {spec.name!r} takes {type(sample).__name__}")
        if isinstance(sample, int | float) and not isinstance(value, int | float):
            raise ProfileError(f"profile field {spec.name!r} takes a number")
    return value


class Profile:
    """Attribute bag of behaviour values at one behaviour date, plus explicit overrides.

    Deviations are the typed exception: `deviations` is declared, so mypy checks every read.
    """

    deviations: Deviations

    def __init__(self, behaviour_date: dt.date, overrides: dict[str, str] | None = None) -> None:
        specs = load_field_specs()
        values = {name: spec.value_at(behaviour_date) for name, spec in specs.items()}
        try:
            self.deviations = from_overrides(overrides or {})
        except DeviationError as exc:
            raise ProfileError(str(exc)) from None
        for key, raw in (overrides or {}).items():
            if is_deviation_key(key):
                continue
            if key not in specs:
                known = ", ".join(sorted(specs))
                raise ProfileError(f"unknown profile field {key!r}; known fields: {known}")
            values[key] = _coerce(specs[key], raw)
        self._values = values
        self.behaviour_date = behaviour_date
        self.overrides = dict(overrides or {})
        # plain instance attributes too: handlers read several fields per request, and a
        # found attribute skips the __getattr__ call (field names never shadow a method)
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"no profile field {name!r}") from None

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)


def parse_overrides(items: list[str]) -> dict[str, str]:
    """Turn `key=value` command-line items into a dict, refusing malformed ones."""
    result: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ProfileError(f"--profile takes key=value, got {item!r}")
        result[key.strip()] = value
    return result
