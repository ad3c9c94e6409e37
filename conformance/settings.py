"""Every `CONFORMANCE_*` environment variable the suite reads, in one place.

Each variable is read here and nowhere else (tests/test_settings.py checks it), so that the
README's table of them (section "Environment variables") can be complete. Values are read when
asked for, not at import, except where a caller keeps the value of its own import.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # as the README shows it; "" when unset means "not given"
    doc: str
    # a timeout or a lifetime: 0 is no value (requests refuses a 0 s timeout: ValueError)
    positive: bool = False


API_TIMEOUT = Setting(
    "CONFORMANCE_API_TIMEOUT", "15", "seconds per read of a management API call", positive=True
)
READY_TIMEOUT = Setting(
    "CONFORMANCE_READY_TIMEOUT",
    "30",
    "seconds the launched reference has to become ready",
    positive=True,
)
LOG_WAIT = Setting("CONFORMANCE_LOG_WAIT", "60", "seconds a log test waits for delivery")
ZONE_WAIT = Setting("CONFORMANCE_ZONE_WAIT", "0", "seconds a run waits for another run's zone")
LEASE_TTL = Setting(
    "CONFORMANCE_LEASE_TTL", "14400", "seconds a run's lease on a zone lasts", positive=True
)
STATE_DIR = Setting("CONFORMANCE_STATE_DIR", "", "the per-user state directory (safety journal)")
SPEC_BASE = Setting("CONFORMANCE_SPEC_BASE", "", "base URL of the spec files the report links")
LEDGERS = Setting("CONFORMANCE_LEDGERS", "", "folder of peer verdict ledgers for the report")

ALL = (API_TIMEOUT, READY_TIMEOUT, LOG_WAIT, ZONE_WAIT, LEASE_TTL, STATE_DIR, SPEC_BASE, LEDGERS)
SECONDS = (API_TIMEOUT, READY_TIMEOUT, LOG_WAIT, ZONE_WAIT, LEASE_TTL)


def text(setting: Setting) -> str | None:
    """The variable's value; None when unset or empty."""
    return os.environ.get(setting.name) or None


# the most a seconds variable may be: a socket timeout of 1e300 s is an OverflowError
MAX_SECONDS = 365 * 24 * 3600.0


class SettingError(ValueError):
    """A variable set to a value that cannot be what it names (`CONFORMANCE_LOG_WAIT=1m`)."""


def seconds(setting: Setting, default: float) -> float:
    """A number of seconds; `default` when unset or empty (a CI template's `VAR: ""`).

    A malformed value is a SettingError naming the variable, raised when the value is asked
    for: callers ask when they use it, never at import.
    """
    raw = (os.environ.get(setting.name) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingError(f"{setting.name}={raw!r} is not a number of seconds") from None
    if value != value or value < 0:  # NaN or negative: no wait means anything then
        raise SettingError(f"{setting.name}={raw!r} is not a number of seconds (>= 0)")
    if setting.positive and value == 0:  # "0", "-0", "1e-400": no timeout or lease is meant
        raise SettingError(f"{setting.name}={raw!r} is no time: it must be > 0 seconds")
    if value > MAX_SECONDS:  # inf, 1e999, 1e300: no socket timeout or clock takes it
        raise SettingError(
            f"{setting.name}={raw!r} is more seconds than a year ({MAX_SECONDS:.0f}); "
            "no timeout or wait that long is meant"
        )
    return value


def path(setting: Setting) -> Path | None:
    value = text(setting)
    return Path(value) if value else None


def check_seconds() -> None:
    """Raise SettingError for the first malformed seconds variable: `conformance` asks before
    it starts a run, so a typo is refused up front rather than inside the pytest child."""
    for setting in SECONDS:
        seconds(setting, float(setting.default))
