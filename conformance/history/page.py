"""The history page: a store's runs of one target -> one self-contained HTML file."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup

from conformance import __version__
from conformance.history.analysis import STATUS_ORDER, History, build_history
from conformance.history.store import Store
from conformance.report.render import _asset, page_environment, write_html
from conformance.results import count_key

# Line colours of the score chart, one per area (colour-blind friendly, Okabe-Ito).
AREA_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000")
CHART_W, CHART_H, PAD_L, PAD_R, PAD_T, PAD_B = 760, 240, 44, 28, 12, 36


@dataclass(frozen=True)
class Series:
    area: str
    colour: str
    points: list[tuple[float, float, str]]  # x, y, tooltip
    latest: float | None  # the score of the latest night, if the area was judged then

    @property
    def path(self) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in self.points)


def chart_x(i: int, count: int) -> float:
    span = CHART_W - PAD_L - PAD_R
    return PAD_L + (span * i / (count - 1) if count > 1 else span / 2)


def chart_y(score: float) -> float:
    return PAD_T + (1 - score) * (CHART_H - PAD_T - PAD_B)


def chart_series(hist: History) -> list[Series]:
    """Polyline points per area; a night without a score for the area is left out."""
    out = []
    count = len(hist.nights)
    for n, (area, scores) in enumerate(sorted(hist.areas.items())):
        pts = [
            (chart_x(i, count), chart_y(s), f"{area} {hist.nights[i].night}: {s:.0%}")
            for i, s in enumerate(scores)
            if s is not None
        ]
        out.append(Series(area, AREA_COLOURS[n % len(AREA_COLOURS)], pts, scores[-1]))
    return out


def status_class(status: str | None) -> str:
    return "s-absent" if status is None else "s-" + count_key(status)


def environment() -> jinja2.Environment:
    env = page_environment("conformance.history")
    env.filters["sclass"] = status_class
    env.globals["report_css"] = _asset("report.css")
    env.globals["history_css"] = Markup(
        (Path(__file__).parent / "templates" / "history.css").read_text("utf-8")
    )
    env.globals["renderer_version"] = __version__
    return env


def render_history(hist: History) -> str:
    geometry = {
        "w": CHART_W, "h": CHART_H, "left": PAD_L, "right": CHART_W - PAD_R, "top": PAD_T,
        "bottom": CHART_H - PAD_B, "x": lambda i: chart_x(i, len(hist.nights)), "y": chart_y,
    }  # fmt: skip
    return (
        environment()
        .get_template("history.html.j2")
        .render(
            h=hist,
            series=chart_series(hist),
            g=geometry,
            statuses=STATUS_ORDER,
            generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
    )


def load_history(store: Store, target: str, as_of: str | None = None) -> History:
    """The target's runs and verdicts, and the latest run of every target for interop (with
    the same as-of filter, so the targets are compared on the same rules)."""
    runs = store.run_rows(target, as_of)
    if not runs:
        known = ", ".join(store.targets()) or "none"
        which = f" at as-of {as_of}" if as_of else ""
        raise LookupError(f"no runs of target {target!r}{which} in the store (targets: {known})")
    latest = {}
    for other in store.targets():
        rows = store.run_rows(other, as_of)
        if rows:
            latest[other] = rows[-1]["id"]
    verdicts = store.rule_rows(sorted({r["id"] for r in runs} | set(latest.values())))
    interop = {t: verdicts[pk] for t, pk in latest.items()}
    return build_history(target, runs, verdicts, interop)


def write_history(store: Store, target: str, out: str | Path, as_of: str | None = None) -> Path:
    return write_html(render_history(load_history(store, target, as_of)), out)
