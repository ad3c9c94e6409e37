"""Run options are declared once (conformance/model/run_options.py) and every one arrives.

Each option of `conformance run` reaches the child pytest command line (as its own flag or the
one the table names) or is read by `conformance run` itself; each option the plugin reads is in
its option group; and every `CONFORMANCE_*` variable is read through conformance/settings.py
and documented in the README.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import conformance
from conformance import settings
from conformance.cli import build_parser, run_options
from conformance.cli_run import FIXED, RunOptions, build_pytest_argv
from conformance.model.run_options import (
    RUN_OPTIONS,
    Kind,
    RunOption,
    Scope,
    for_plugin,
    for_run,
)

ROOT = Path(conformance.__file__).parent.parent
# options `conformance run` reads itself: nothing of them goes to pytest
RUN_ONLY = {"failed_from", "report_dir", "baseline", "spec_base", "store", "no_html"}


def _sample(option: RunOption) -> list[str]:
    """Command-line words that give `option` a value other than its default."""
    values = {Kind.TEXT: "v1", Kind.INT: "7", Kind.PATH: "p1", Kind.LIST: "l1"}
    if option.kind is Kind.FLAG:
        return [option.name]
    if option.dest in ("as_of", "compat_date"):
        return [option.name, "2022-05-01"]
    return [option.name, values[option.kind]]


@pytest.mark.parametrize("option", list(for_run()), ids=lambda o: o.name)
def test_every_run_option_reaches_pytest(option: RunOption, tmp_path: Path) -> None:
    if option.dest in RUN_ONLY:
        assert option.scope is Scope.RUN and option.pytest_flag is None
        return
    words = _sample(option)
    opts = run_options(build_parser().parse_args(["run", *words]), [])
    argv = build_pytest_argv(opts, tmp_path, "rid")
    flag = option.pytest_flag or option.name
    assert flag in argv, f"{option.name} does not reach pytest"
    if option.kind is not Kind.FLAG:
        # the run id reaches pytest as the folder name `conformance run` makes of it
        expected = "rid" if option.dest == "run_id" else words[1]
        assert argv[argv.index(flag) + 1] == expected


def test_every_forwarded_option_is_one_the_plugin_has() -> None:
    plugin = {o.name for o in for_plugin()}
    for option in RUN_OPTIONS:
        if option.scope is Scope.BOTH:
            assert option.name in plugin
    assert {o.dest for o in for_run()} >= FIXED


def test_run_options_fields_are_the_table() -> None:
    fields = {f.name for f in dataclasses.fields(RunOptions)}
    from_table = {o.run_field for o in for_run() if o.run_field}
    # pytest_args: what follows `--`; rerun_of: filled in by --failed-from
    assert fields == from_table | {"pytest_args", "rerun_of"}


def test_the_plugin_reads_every_option_of_its_group(pytestconfig: pytest.Config) -> None:
    for option in for_plugin():
        pytestconfig.getoption(option.dest)  # ValueError when the group lacks it


def test_every_option_of_the_plugin_group_is_read_somewhere() -> None:
    """An option of the table that no code of the package reads would be declared for nothing."""
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "conformance").rglob("*.py"))
    unread = [
        o.name
        for o in for_plugin()
        if f'getoption("{o.dest}"' not in code and f"getoption('{o.dest}'" not in code
    ]
    assert unread == []


def test_store_and_its_older_name() -> None:
    for flag in ("--store", "--history"):
        ns = build_parser().parse_args(["run", flag, "sqlite:///h.db"])
        assert run_options(ns, []).history == "sqlite:///h.db"


ENV_READ = re.compile(r"os\.environ|os\.getenv")
CONFORMANCE_VAR = re.compile(r"\bCONFORMANCE_[A-Z_]+\b")


def test_environment_is_read_only_in_settings() -> None:
    """No module of conformance/ but settings.py reads the environment by a CONFORMANCE_ name."""
    offenders = []
    for path in sorted((ROOT / "conformance").rglob("*.py")):
        if path.name == "settings.py" and path.parent.name == "conformance":
            continue
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            if ENV_READ.search(line) and CONFORMANCE_VAR.search(line):
                offenders.append(f"{path.relative_to(ROOT)}: {line.strip()}")
            if re.search(r"""["']CONFORMANCE_[A-Z_]+["']""", line):
                offenders.append(f"{path.relative_to(ROOT)}: {line.strip()}")
    assert offenders == []


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = {m.group(1) for m in re.finditer(r"^\| `(CONFORMANCE_[A-Z_]+)` \|", readme, re.M)}
    assert table == {s.name for s in settings.ALL}


def test_every_conformance_variable_named_in_the_package_is_a_setting() -> None:
    named: set[str] = set()
    for path in (ROOT / "conformance").rglob("*.py"):
        named |= set(CONFORMANCE_VAR.findall(path.read_text(encoding="utf-8")))
    assert named <= {s.name for s in settings.ALL}
