"""The options of a run, declared once: `conformance run`'s argparse, what it forwards to pytest,
and the plugin's `conformance` option group are all generated from `RUN_OPTIONS`.

`conformance run` forwards to the plugin's option group (scope BOTH: the same flag, the same
value); a few options are its own (RUN: read by `conformance run` itself, or passed on as
another pytest flag such as `-n` or `--timeout`) and a few exist only in pytest (PLUGIN).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from conformance.model.targets import DEFAULT_TARGETS_FILE, REFERENCE


class Kind(Enum):
    TEXT = "text"  # one value
    INT = "int"  # one whole number
    PATH = "path"  # one file or folder
    LIST = "list"  # repeatable: every value, in order
    FLAG = "flag"  # present or not


class Scope(Enum):
    BOTH = "both"  # `conformance run` offers it and forwards it to the plugin's option
    RUN = "run"  # `conformance run` only
    PLUGIN = "plugin"  # the plugin's option group only (plain pytest)


@dataclass(frozen=True)
class RunOption:
    flags: tuple[str, ...]  # the first is its name; the others are aliases
    dest: str  # argparse dest and pytest's `config.getoption` name
    kind: Kind
    help: str
    metavar: str | None = None
    default: Any = None  # of the plugin's option, and of `conformance run` after parsing
    scope: Scope = Scope.BOTH
    field: str | None = None  # the `cli_run.RunOptions` field, when not `dest` ("": none)
    # RUN scope: the pytest flag `conformance run` passes the value on as (None: its own)
    pytest_flag: str | None = None

    @property
    def name(self) -> str:
        return self.flags[0]

    @property
    def run_field(self) -> str | None:
        """Its `cli_run.RunOptions` field; None for one `conformance run` reads itself first."""
        return self.dest if self.field is None else (self.field or None)


RUN_OPTIONS: tuple[RunOption, ...] = (
    RunOption(("--target",), "target", Kind.TEXT, "target to check (default: the bundled "
              "reference)", "NAME", REFERENCE),
    RunOption(("--targets-file",), "targets_file", Kind.TEXT,
              f"TOML file of targets (default: ./{DEFAULT_TARGETS_FILE} if present)", "PATH"),
    RunOption(("--failed-from",), "failed_from", Kind.PATH,
              "run exactly the rules that failed, errored or were flaky in RESULTS, with its "
              "target, date, areas and options (each overridable here); docs/triage.md",
              "RESULTS", scope=Scope.RUN, field=""),
    RunOption(("--as-of",), "as_of", Kind.TEXT,
              "date (YYYY-MM-DD) whose rules apply (default: today)", "DATE"),
    RunOption(("--rule",), "rule", Kind.LIST, "only tests of rules whose id starts with PREFIX "
              "(repeatable; ID$: exactly ID)", "PREFIX", [], field="rules"),
    RunOption(("--area",), "area", Kind.LIST, "only tests of rules of AREA (repeatable)", "AREA",
              [], field="areas"),
    RunOption(("--results",), "results", Kind.TEXT, "write results.json here", "PATH",
              scope=Scope.PLUGIN),
    RunOption(("--report-dir",), "report_dir", Kind.PATH,
              "where run folders go: DIR/<run-id>/ (default: ./reports)", "DIR", Path("reports"),
              scope=Scope.RUN),
    RunOption(("--report-dir",), "report_dir", Kind.TEXT,
              "write DIR/<run-id>/results.json (and junit.xml unless --junitxml) when "
              "--results is not given", "DIR", scope=Scope.PLUGIN),
    RunOption(("--run-id",), "run_id", Kind.TEXT,
              "id of this run, and the name of its folder (default: UTC time + target)", "ID"),
    RunOption(("--reference-profile",), "reference_profile", Kind.LIST,
              "override a behaviour profile field of the launched reference (repeatable)",
              "KEY=VALUE", []),
    RunOption(("-n",), "workers", Kind.TEXT, "pytest-xdist workers (default: auto; 0: no xdist)",
              None, "auto", scope=Scope.RUN, pytest_flag="-n"),
    RunOption(("--baseline",), "baseline", Kind.PATH,
              "also diff against an earlier results.json; a regression fails the run",
              "RESULTS", scope=Scope.RUN),
    RunOption(("--spec-base",), "spec_base", Kind.TEXT, "base URL of the spec files (links)",
              "URL", scope=Scope.RUN),
    RunOption(("--no-html",), "no_html", Kind.FLAG, "write results.json and junit.xml only, "
              "no index.html (a caller that reads only the results: the mutation harness)",
              default=False, scope=Scope.RUN),
    RunOption(("--expectations",), "expectations", Kind.TEXT,
              "known failures of the target, as strict xfails "
              "(default: ./expectations/<target>.yaml if present)", "PATH"),
    RunOption(("--compat-date",), "compat_date", Kind.TEXT, "compatibility date of the "
              "bindings' calling worker (default: the as-of date)", "DATE"),
    RunOption(("--compat-flag",), "compat_flag", Kind.LIST, "compatibility flag of the "
              "bindings' calling worker (repeatable)", "NAME", [], field="compat_flags"),
    RunOption(("--allow-shared-zone",), "allow_shared_zone", Kind.FLAG,
              "run on a zone that has log push jobs or custom field rules of its own (they are "
              "affected during the run, and restored; docs/safety.md)", default=False),
    RunOption(("--case-timeout",), "case_timeout", Kind.INT,
              "per-test time limit; a test over it is an ERROR (default: 300)", "SECONDS", 300,
              scope=Scope.RUN, pytest_flag="--timeout"),
    RunOption(("--rerun",), "rerun", Kind.INT,
              "rerun a failed or errored case up to N times; a case that then passes is "
              "recorded FLAKY (never a pass), with every attempt's evidence", "N", 0),
    RunOption(("--store", "--history"), "store", Kind.TEXT,
              "record the run in this results store (SQLite path or database URL); "
              "--history is the older name", "URL", scope=Scope.RUN, field="history"),
    RunOption(("--model-steps",), "model_steps", Kind.INT, "steps of the stateful model test "
              "of the store (default: its small fixed budget)", "N", scope=Scope.PLUGIN),
    RunOption(("--model-shrink-seconds",), "model_shrink_seconds", Kind.INT,
              "time the stateful model may spend shrinking a divergence to its shortest "
              "sequence (default 60; 0 reports the sequence as found, the same verdict sooner)",
              "S", scope=Scope.PLUGIN),
)  # fmt: skip


# Where a run writes, not what it checks: never recorded among a run's options, never repeated
# by `--failed-from` (the re-run writes its own folder, not over the run it re-runs).
OUTPUT_FLAGS = frozenset({"--results", "--report-dir"})


def for_run() -> Iterator[RunOption]:
    """The options `conformance run` offers, in table order."""
    return (o for o in RUN_OPTIONS if o.scope is not Scope.PLUGIN)


def for_plugin() -> Iterator[RunOption]:
    """The options of the plugin's `conformance` option group, in table order."""
    return (o for o in RUN_OPTIONS if o.scope is not Scope.RUN)


def forwarded() -> Iterator[RunOption]:
    """The options `conformance run` passes on to pytest, in table order."""
    return (o for o in RUN_OPTIONS if o.scope is Scope.BOTH or o.pytest_flag)


def _keywords(option: RunOption, *, for_argparse: bool) -> dict[str, Any]:
    kw: dict[str, Any] = {"dest": option.dest, "help": option.help}
    if option.metavar:
        kw["metavar"] = option.metavar
    if option.kind is Kind.FLAG:
        kw.update(action="store_true", default=False)
        return kw
    if option.kind is Kind.LIST:
        kw.update(action="append", default=[])
        return kw
    if option.kind is Kind.INT:
        kw["type"] = int
    if option.kind is Kind.PATH and for_argparse:
        kw["type"] = Path
    # `conformance run` keeps None for an option not given (--failed-from fills those in)
    # but ints and paths whose default it always uses, which the plugin has no reason to tell
    given_apart = for_argparse and option.kind is Kind.TEXT and option.scope is Scope.BOTH
    kw["default"] = None if given_apart else option.default
    return kw


def add_to_argparse(parser: argparse.ArgumentParser) -> None:
    """`conformance run`'s options."""
    for option in for_run():
        parser.add_argument(*option.flags, **_keywords(option, for_argparse=True))


def add_to_pytest(addoption: Callable[..., None]) -> None:
    """The plugin's option group (`addoption` of a pytest OptionGroup)."""
    for option in for_plugin():
        addoption(*option.flags, **_keywords(option, for_argparse=False))


def parsed_values(ns: argparse.Namespace) -> dict[str, Any]:
    """RunOptions fields from `conformance run`'s parsed arguments, defaults filled in."""
    values: dict[str, Any] = {}
    for option in for_run():
        if option.run_field is None:
            continue
        value = getattr(ns, option.dest)
        values[option.run_field] = option.default if value is None else value
    return values


def pytest_args(values: dict[str, Any], *, skip: frozenset[str] = frozenset()) -> list[str]:
    """The pytest arguments that forward RunOptions field `values`, in table order; an option
    at its default (empty, false, none) is left out so that the plugin's default applies."""
    argv: list[str] = []
    for option in forwarded():
        if option.dest in skip:
            continue
        value = values.get(option.run_field or option.dest)
        flag = option.pytest_flag or option.name
        if option.kind is Kind.LIST:
            for item in value or ():
                argv += [flag, str(item)]
        elif option.kind is Kind.FLAG:
            argv += [flag] if value else []
        elif value:
            argv += [flag, str(value)]
    return argv
