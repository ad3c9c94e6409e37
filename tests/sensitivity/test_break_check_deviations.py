"""Every deviation a break-check asks for is one the reference's registry knows, with its type.

The break-check cases are module-level data (tests/helpers/break_checks.py); each case's
`deviate_*` overrides reach the reference as `--profile key=value`. The reference refuses an
unknown or mistyped deviation at start-up, but only a slow run would show it; this reads the
case data and builds each profile directly, so a renamed deviation fails here in a second.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

import yaml
from helpers.break_checks import BREAK_CHECK_DATA, BREAK_CHECK_MODULES, TESTS, _load

from reference_impl.deviations import Deviations, is_deviation_key
from reference_impl.profile import Profile


def _override_dicts(value: Any) -> Iterable[dict[str, Any]]:
    """Every dict inside nested case data that names at least one deviation."""
    if isinstance(value, dict):
        if any(isinstance(k, str) and is_deviation_key(k) for k in value):
            yield value
        for item in value.values():
            yield from _override_dicts(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _override_dicts(item)
    elif hasattr(value, "values") and hasattr(value, "marks"):  # pytest.param
        yield from _override_dicts(value.values)


def _cases() -> list[dict[str, Any]]:
    data: list[Any] = []
    for relative in BREAK_CHECK_MODULES:
        data += [v for k, v in vars(_load(relative)).items() if k.isupper()]
    for relative in BREAK_CHECK_DATA:
        data.append(yaml.safe_load((TESTS / relative).read_text("utf-8")))
    return list(_override_dicts(data))


def test_break_checks_ask_only_for_known_deviations() -> None:
    """Each case's overrides build a profile whose deviations differ from the defaults."""
    cases = _cases()
    assert len(cases) > 100, "the case data was not found"
    for overrides in cases:
        as_text = {k: v if isinstance(v, str) else json.dumps(v) for k, v in overrides.items()}
        profile = Profile(dt.date(2026, 1, 1), as_text)
        assert profile.deviations != Deviations(), f"no deviation switched on by {overrides}"
