"""The `conformance` option group and its parsed, validated form."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conformance.model import run_options


def add_options(parser: pytest.Parser) -> None:
    """The `conformance` option group, from the table `conformance run` forwards to."""
    group = parser.getgroup("conformance", "edge-conformance suite")
    run_options.add_to_pytest(group.addoption)


@dataclass(frozen=True)
class Options:
    target: str
    targets_file: Path | None
    as_of: dt.date
    rules: tuple[str, ...]
    areas: tuple[str, ...]
    results: Path | None
    reference_profile: dict[str, str] = field(default_factory=dict)
    run_id: str | None = None
    report_dir: Path | None = None
    expectations: Path | None = None
    compat_date: dt.date | None = None  # None: the as-of date (see effective_compat_date)
    compat_flags: tuple[str, ...] = ()
    allow_shared_zone: bool = False
    rerun: int = 0  # --rerun N
    # the plugin-only options given (`conformance run -- --model-steps N`), as arguments
    plugin_args: tuple[str, ...] = ()

    @property
    def effective_compat_date(self) -> dt.date:
        return self.compat_date or self.as_of

    @property
    def selective(self) -> bool:
        return bool(self.rules or self.areas)


def parse_date(text: str) -> dt.date:
    return _iso_date("--as-of", text, ", e.g. 2022-05-01")


def _iso_date(option: str, text: str, example: str = "") -> dt.date:
    """`text` as a YYYY-MM-DD date, or a usage error naming `option` (and `example`)."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise pytest.UsageError(
            f"{option}: {text!r} is not a date; expected YYYY-MM-DD{example}"
        ) from None


def parse_profile(pairs: list[str]) -> dict[str, str]:
    profile: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise pytest.UsageError(f"--reference-profile: expected KEY=VALUE, got {pair!r}")
        profile[key.strip()] = value
    return profile


def read_options(config: pytest.Config) -> Options:
    """Options of this run; usage errors for values that cannot be right."""
    as_of_text = config.getoption("as_of")
    targets_file = config.getoption("targets_file")
    results = config.getoption("results")
    report_dir = config.getoption("report_dir")
    expectations = config.getoption("expectations")
    return Options(
        target=str(config.getoption("target")),
        targets_file=Path(targets_file) if targets_file else None,
        as_of=parse_date(as_of_text) if as_of_text else dt.date.today(),
        rules=tuple(config.getoption("rule")),
        areas=tuple(config.getoption("area")),
        results=Path(results) if results else None,
        reference_profile=parse_profile(list(config.getoption("reference_profile"))),
        run_id=config.getoption("run_id"),
        report_dir=Path(report_dir) if report_dir else None,
        expectations=Path(expectations) if expectations else None,
        compat_date=_compat_date(config.getoption("compat_date")),
        compat_flags=tuple(config.getoption("compat_flag")),
        allow_shared_zone=bool(config.getoption("allow_shared_zone")),
        rerun=int(config.getoption("rerun", 0) or 0),
        plugin_args=_plugin_args(config),
    )


def _plugin_args(config: pytest.Config) -> tuple[str, ...]:
    """The plugin-only options this run was given, as arguments `--failed-from` repeats."""
    from conformance.model.run_options import OUTPUT_FLAGS, RUN_OPTIONS, Scope

    args: list[str] = []
    for option in RUN_OPTIONS:
        value = config.getoption(option.dest, None)
        if option.name in OUTPUT_FLAGS:  # where this run wrote: not an option to repeat
            continue
        if option.scope is Scope.PLUGIN and value not in (None, option.default):
            args += [option.flags[0], str(value)]
    return tuple(args)


def _compat_date(text: str | None) -> dt.date | None:
    if not text:
        return None
    return _iso_date("--compat-date", text)
