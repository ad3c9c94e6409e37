"""Run the installed conformance suite in a subprocess and return its results.json.

Area tests use it for sensitivity checks: run a rule against a reference made to deviate
(`reference_profile`) and assert the rule comes out FAIL.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from conformance.cli_run import suite_plugin_args
from conformance.plugin.collection import rule_matches
from helpers.zygote_client import run_pytest

TIMEOUT_S = 600


def suite_packages(rules: Sequence[str]) -> list[str]:
    """The suite's area packages holding the rules (area = first id segment), else all.

    Collecting only those areas keeps a run fast and keeps an unrelated area's broken module
    from interrupting it.
    """
    areas = sorted({rule.split(".", 1)[0] for rule in rules})
    if areas and all(importlib.util.find_spec(f"conformance.suite.{a}") for a in areas):
        return [f"conformance.suite.{area}" for area in areas]
    return ["conformance.suite"]


def run_suite(
    tmp_path: Path,
    *,
    rules: list[str],
    as_of: str | None = None,
    reference_profile: dict[str, str] | None = None,
    extra_args: Sequence[str] = (),
    packages: Sequence[str] | None = None,
    results_name: str = "results.json",
) -> dict[str, Any]:
    """Results of `python -m pytest --pyargs conformance.suite.<area> --rule ...` from `tmp_path`
    (`packages`: the modules or packages to collect instead of the rules' areas), made by
    the fork server (helpers/zygote_client.py) when it can serve the run.

    The document also carries `_exit_code` and `_output` (tail of the run's output) so that a
    failing assertion can show what happened.
    """
    results = tmp_path / results_name
    # the plugins a run uses, loaded by name instead of every installed entry point: a project
    # session starts ~250 of these runs
    plugins = suite_plugin_args()
    collected = packages or suite_packages(rules)
    cmd = [*plugins, "--pyargs", *collected, "-p",
           "no:cacheprovider", "-q", "--results", str(results),
           # a break-check needs the verdict, not the shortest sequence: no shrinking
           "--model-shrink-seconds", "0"]  # fmt: skip
    for rule in rules:
        cmd += ["--rule", rule]
    if as_of is not None:
        cmd += ["--as-of", as_of]
    for key, value in (reference_profile or {}).items():
        cmd += ["--reference-profile", f"{key}={value}"]
    cmd += list(extra_args)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    code, output = run_pytest(cmd, tmp_path, env, TIMEOUT_S)
    output = output[-4000:]
    if not results.is_file():
        raise AssertionError(f"the suite wrote no results (exit {code}):\n{output}")
    document: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
    document["_exit_code"], document["_output"] = code, output
    return document


# The storage area's stateful model: one case that checks ~60 rules in ~8 s, most of a
# storage break-check's run.
MODEL_MODULE = "conformance.suite.storage.model.test_store_model"


@functools.cache
def _covered() -> dict[str, list[str]]:
    from conformance.coverage import covered_rule_ids

    return covered_rule_ids()


def direct_test_modules(rules: Sequence[str]) -> list[str]:
    """The suite modules whose `pytest.mark.rule` names a rule that `--rule` would select for
    `rules` (an id prefix, or an exact id ending in `$`), read from their source; the storage
    model left out."""
    modules: set[str] = set()
    for rule_id, places in _covered().items():
        if any(rule_matches(rule_id, pattern) for pattern in rules):
            modules.update(place.split("::")[0].removesuffix(".py").replace("/", ".")
                           for place in places)  # fmt: skip
    modules.discard(MODEL_MODULE)
    return sorted(modules)


def run_expecting_fail(
    tmp_path: Path,
    *,
    rules: list[str],
    as_of: str | None = None,
    reference_profile: dict[str, str] | None = None,
    extra_args: Sequence[str] = (),
) -> dict[str, Any]:
    """`run_suite` for a break-check, which wants every rule of `rules` FAIL.

    First only the modules that name the rules run (no other module collected, the storage
    model left out). If they already make every rule FAIL, that is the verdict the whole
    selection would give: a rule takes the worst status of its cases and FAIL is the worst
    (conformance/results.py), so more cases cannot change it. Otherwise the whole selection
    runs as `run_suite` would, model included, and its document is returned; a module the
    source scan missed can cost that second run, never a verdict.
    """
    kwargs: dict[str, Any] = {"as_of": as_of, "reference_profile": reference_profile}
    modules = direct_test_modules(rules)
    if modules:
        # from tmp_path too: an expectations file or a plugin the caller put there applies
        document = run_suite(
            tmp_path, rules=rules, packages=modules, extra_args=extra_args,
            results_name="direct-tests.json", **kwargs,
        )  # fmt: skip
        statuses = {rule["id"]: rule["status"] for rule in document["rules"]}
        if all(statuses.get(rule) == "FAIL" for rule in rules):
            return document
    return run_suite(tmp_path, rules=rules, extra_args=extra_args, **kwargs)


def rule_status(document: dict[str, Any], rule_id: str) -> str:
    """Status of one rule in a results document."""
    for rule in document["rules"]:
        if rule["id"] == rule_id:
            return str(rule["status"])
    raise KeyError(f"{rule_id!r} not in results")


def deviation_label(rules: Sequence[str], profile: dict[str, str], as_of: str | None = None) -> str:
    """Test id of a break-check: first rule, the overrides and the date."""
    overrides = ",".join(f"{k}={v}" for k, v in profile.items())
    return f"{rules[0]}[{overrides}{'@' + as_of if as_of else ''}]"


def list_override(field: str) -> Callable[..., dict[str, str]]:
    """Builder of a profile override whose value is a JSON list: `f("a", "b")` -> {field: ...}."""

    def build(*items: str) -> dict[str, str]:
        return {field: json.dumps(list(items))}

    return build


def assert_rules_fail(
    tmp_path: Path, rules: list[str], profile: dict[str, str], as_of: str | None = None
) -> None:
    """Against a reference made to deviate by `profile`, every rule of `rules` is FAIL."""
    document = run_expecting_fail(tmp_path, rules=rules, as_of=as_of, reference_profile=profile)
    statuses = {rule: rule_status(document, rule) for rule in rules}
    assert set(statuses.values()) == {"FAIL"}, f"{statuses}\n{document['_output']}"


def assert_rules_hold(tmp_path: Path, rules: list[str]) -> None:
    """Baseline of a break-check: against the plain reference the rules PASS (or are N/A)."""
    document = run_suite(tmp_path, rules=rules)
    statuses = {rule: rule_status(document, rule) for rule in rules}
    wrong = {rule: s for rule, s in statuses.items() if s not in {"PASS", "N/A"}}
    assert not wrong, f"{wrong}\n{document['_output']}"
