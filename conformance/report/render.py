"""Rendering: view models -> one self-contained HTML file (inline CSS and JS, no network)."""

from __future__ import annotations

import datetime as dt
from importlib import resources
from pathlib import Path

import jinja2
from markupsafe import Markup

from conformance import __version__, atomic_file
from conformance.report.load import Results, schema_problems
from conformance.report.matrix import build_matrix
from conformance.report.sensitivity import published as published_sensitivity
from conformance.report.summary import failing_beside_the_verdict
from conformance.report.view import build_view, pct
from conformance.results import COUNT_ORDER, Status


def _asset(name: str) -> Markup:
    """A CSS/JS file of the package, trusted, inlined verbatim."""
    text = resources.files("conformance.report").joinpath("templates", name).read_text("utf-8")
    return Markup(text)


def page_environment(package: str) -> jinja2.Environment:
    """The templates of `package`, autoescaped everywhere: messages, evidence and bodies come
    from the target (the report's and the history page's templates alike). Templates name
    statuses as `Status.NA` etc., never as string literals (tests/plugin/test_status_vocabulary)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["Status"] = Status
    return env


def environment() -> jinja2.Environment:
    env = page_environment("conformance.report")
    env.filters["pct"] = pct
    env.globals["asset"] = _asset
    env.globals["renderer_version"] = __version__
    # (label, slug) of every rule status in bar order: legends and count lists
    env.globals["status_parts"] = [(status.value, status.key) for status in COUNT_ORDER]
    return env


def _generated() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def render_report(
    doc: Results, spec_base: str | None = None, ledgers_dir: Path | None = None
) -> str:
    """HTML of the single-run compliance report; the peers' verdict ledgers are read from
    `ledgers_dir`, else from their default place (explain.default_ledgers_dir)."""
    from conformance.report.explain import default_ledgers_dir, load_ledgers

    ledgers = load_ledgers(ledgers_dir or default_ledgers_dir())
    view = build_view(doc, spec_base, warnings=schema_problems(doc), ledgers=ledgers)
    template = environment().get_template("report.html.j2")
    # the SHOULD/MAY rules that fail the exit status, named beside the verdict as on the terminal
    beside = failing_beside_the_verdict(doc)
    return template.render(
        v=view, beside=beside, sensitivity=published_sensitivity(), generated=_generated()
    )


def render_matrix(
    docs: list[Results], labels: list[str] | None = None, spec_base: str | None = None
) -> str:
    """HTML of the rules x targets matrix of several results files."""
    matrix = build_matrix(docs, labels, spec_base)
    template = environment().get_template("matrix.html.j2")
    return template.render(m=matrix, generated=_generated())


def write_html(html: str, out: str | Path) -> Path:
    """Write atomically, so a browser refreshing mid-run never sees half a page."""
    return atomic_file.write_text(out, html)
