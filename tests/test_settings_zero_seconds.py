"""A defect found by a hostile review (fixed, conformance/settings.py): a timeout of 0 seconds
was accepted, like `inf` before it (tests/test_settings_infinite_seconds.py).

`CONFORMANCE_API_TIMEOUT=0` passed the CLI's up-front check (>= 0), then every management API
call raised ValueError ("timeout cannot be set to a value less than or equal to 0") inside
the pytest child: `conformance run --area logs` ended with 100 ERROR cases instead of one
clear refusal. A timeout, the reference's ready time and a lease's lifetime must be > 0; a
wait (CONFORMANCE_LOG_WAIT, CONFORMANCE_ZONE_WAIT, default 0) may be 0.
"""

from __future__ import annotations

import pytest

from conformance import settings


@pytest.mark.parametrize("setting", [settings.API_TIMEOUT, settings.READY_TIMEOUT,
                                     settings.LEASE_TTL])  # fmt: skip
@pytest.mark.parametrize("value", ["0", "0.0", "-0", "1e-400"])
def test_a_timeout_of_no_time_is_refused(
    monkeypatch: pytest.MonkeyPatch, setting: settings.Setting, value: str
) -> None:
    monkeypatch.setenv(setting.name, value)
    with pytest.raises(settings.SettingError, match=rf"{setting.name}=.*> 0"):
        settings.seconds(setting, float(setting.default))
    with pytest.raises(settings.SettingError, match=setting.name):
        settings.check_seconds()


@pytest.mark.parametrize("setting", [settings.LOG_WAIT, settings.ZONE_WAIT])
def test_a_wait_of_no_time_is_taken(
    monkeypatch: pytest.MonkeyPatch, setting: settings.Setting
) -> None:
    monkeypatch.setenv(setting.name, "0")
    assert settings.seconds(setting, float(setting.default)) == 0.0
