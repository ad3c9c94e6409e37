"""A defect found by a hostile review (fixed, conformance/settings.py): a seconds variable of
`inf` (or `1e999`, or a finite value past what a socket or a clock takes) was accepted.

`float()` takes "inf" and "1e999", so check_seconds let `CONFORMANCE_API_TIMEOUT=inf` through:
every management API call then died with OverflowError ("timestamp out of range for platform
time_t") inside the pytest child, an ERROR per rule instead of one clear refusal, and
`CONFORMANCE_LOG_WAIT=inf` / `CONFORMANCE_ZONE_WAIT=inf` waited forever. A seconds value must be
finite and at most settings.MAX_SECONDS (a year).
"""

from __future__ import annotations

import pytest

from conformance import settings


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "1e999", "1e300", "31536001"])
def test_a_value_no_clock_takes_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CONFORMANCE_API_TIMEOUT", value)
    with pytest.raises(settings.SettingError, match="CONFORMANCE_API_TIMEOUT"):
        settings.seconds(settings.API_TIMEOUT, 15.0)


def test_a_year_is_still_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_ZONE_WAIT", "31536000")
    assert settings.seconds(settings.ZONE_WAIT, 0.0) == 31536000.0


# the CLI's refusal of `inf` up front: tests/test_settings_empty_values.py
