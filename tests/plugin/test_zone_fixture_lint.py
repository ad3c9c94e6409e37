"""A suite fixture that outlives one test and uses the zone takes `zone_lock` (issue 22).

The per-test lock (`_zone_serialised`, conformance/plugin/zone_test_lock.py) is a function-scoped
fixture: pytest sets module- and class-scoped fixtures up before it, so such a fixture that
changes the zone without taking the lock itself races the other workers' tests.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conformance.plugin.zone_test_lock import ZONE_WIDE_FIXTURES

SUITE = Path(__file__).resolve().parents[2] / "conformance" / "suite"


def _scope(decorator: ast.expr) -> str | None:
    """The scope of a `@pytest.fixture(...)` decorator, "function" by default; None otherwise."""
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call else decorator
    if not (isinstance(target, ast.Attribute) and target.attr == "fixture"):
        return None
    for keyword in call.keywords if call else []:
        if keyword.arg == "scope" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    return "function"


def unlocked_wide_fixtures(source: str) -> list[str]:
    """Names of non-function-scoped fixtures that take a zone-wide fixture but not zone_lock."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef):
            continue
        scopes = [s for s in map(_scope, node.decorator_list) if s is not None]
        params = {a.arg for a in node.args.args}
        wide = bool(params & ZONE_WIDE_FIXTURES)
        if scopes and scopes[0] != "function" and wide and "zone_lock" not in params:
            found.append(node.name)
    return found


def test_the_lint_sees_an_unlocked_module_fixture() -> None:
    source = '@pytest.fixture(scope="module")\ndef made(rules_api):\n    return 1\n'
    assert unlocked_wide_fixtures(source) == ["made"]
    locked = '@pytest.fixture(scope="module")\ndef made(rules_api, zone_lock):\n    return 1\n'
    assert unlocked_wide_fixtures(locked) == []


def test_suite_module_fixtures_on_the_zone_take_the_lock() -> None:
    paths = sorted(SUITE.rglob("*.py"))
    assert paths, f"no suite modules under {SUITE}"
    found = {
        str(path.relative_to(SUITE)): names
        for path in paths
        if (names := unlocked_wide_fixtures(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"module fixtures on the zone without zone_lock: {found}"
