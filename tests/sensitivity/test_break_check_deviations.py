"""Every deviation a break-check asks for is one the reference's registry knows, with its type.

The break-check cases are module-level data (tests/helpers/break_checks.py); each case's
`deviate_*` overrides reach the reference as `--profile key=value`. The reference refuses an
unknown or mistyped deviation at start-up, but only a slow run would show it; this reads the
case data and builds each profile directly, so a renamed deviation fails here in a second.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from helpers.break_checks import case_data, nested_values

from reference_impl.deviations import Deviations, is_deviation_key
from reference_impl.profile import Profile


def _cases() -> list[dict[str, Any]]:
    """Every dict inside the case data that names at least one deviation."""
    return [
        value
        for value in nested_values(case_data())
        if isinstance(value, dict)
        and any(isinstance(k, str) and is_deviation_key(k) for k in value)
    ]


def test_break_checks_ask_only_for_known_deviations() -> None:
    """Each case's overrides build a profile whose deviations differ from the defaults."""
    cases = _cases()
    assert len(cases) > 100, "the case data was not found"
    for overrides in cases:
        as_text = {k: v if isinstance(v, str) else json.dumps(v) for k, v in overrides.items()}
        profile = Profile(dt.date(2026, 1, 1), as_text)
        assert profile.deviations != Deviations(), f"no deviation switched on by {overrides}"
