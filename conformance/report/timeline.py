"""The timeline picture: dated rules placed on a time axis with their status at the as-of date."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from conformance.report.load import status_slug
from conformance.results import UNTESTED


@dataclass
class Mark:
    """One rule taking effect (`since`) or being replaced (`until`) on a date."""

    rule_id: str
    title: str
    kind: str  # "since" | "until"
    status: str
    slug: str


@dataclass
class Stop:
    """One date on the axis with everything that changed on it."""

    date: str
    x: float  # percent of the axis width
    marks: list[Mark] = field(default_factory=list)
    past: bool = True  # on or before the as-of date
    labelled: bool = False  # room for its date under the axis


@dataclass
class Tick:
    """A year boundary on the axis, so that crowded dates stay readable."""

    label: str
    x: float


@dataclass
class Timeline:
    stops: list[Stop]
    as_of: str
    as_of_x: float
    ticks: list[Tick] = field(default_factory=list)


MIN_LABEL_GAP = 11.0  # percent of the axis between two date labels


def _parse(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        return None


def build_timeline(rules: list[dict[str, Any]], as_of: str) -> Timeline | None:
    """Group dated rules by date and place dates (and the as-of marker) proportionally."""
    by_date: dict[dt.date, list[Mark]] = {}
    for rule in rules:
        for kind in ("since", "until"):
            day = _parse(rule.get(kind)) if rule.get(kind) else None
            if day is None:
                continue
            status = str(rule.get("status") or UNTESTED)
            by_date.setdefault(day, []).append(
                Mark(
                    str(rule.get("id")),
                    str(rule.get("title", "")),
                    kind,
                    status,
                    status_slug(status),
                )
            )
    if not by_date:
        return None
    as_of_day = _parse(as_of)
    days = sorted(by_date)
    first = min(days[0], as_of_day) if as_of_day else days[0]
    last = max(days[-1], as_of_day) if as_of_day else days[-1]
    span = max((last - first).days, 1)

    def x(day: dt.date) -> float:
        return round(3 + 94 * (day - first).days / span, 2)

    stops = [
        Stop(
            day.isoformat(),
            x(day),
            sorted(by_date[day], key=lambda m: m.rule_id),
            past=as_of_day is None or day <= as_of_day,
        )
        for day in days
    ]
    last_label = -MIN_LABEL_GAP
    for stop in stops:
        if stop.x - last_label >= MIN_LABEL_GAP:
            stop.labelled, last_label = True, stop.x
    ticks = [
        Tick(str(year), x(dt.date(year, 1, 1))) for year in range(first.year + 1, last.year + 1)
    ]
    return Timeline(stops, as_of, x(as_of_day) if as_of_day else 100.0, ticks)
