"""Small helpers shared by the ruleset and log push handlers: ids, timestamps, body checks."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from reference_impl.profile import Profile
from reference_impl.wire.mgmt.envelope import ApiError


def new_id(profile: Profile) -> str:
    """A 32-hex identifier (16 hex under the deviation that proves the suite checks ids)."""
    return secrets.token_hex(8 if profile.deviations.short_ids else 16)


def now_iso(profile: Profile, seconds: float) -> str:
    """`seconds` (the reference's clock, storage/clock.py) in ISO 8601 UTC with fractional
    seconds, e.g. 2026-11-21T10:00:00.123456Z."""
    now = dt.datetime.fromtimestamp(seconds, dt.UTC)
    if profile.deviations.timestamp_without_fraction:
        return now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def require_object(body: Any, error_key: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(error_key, "the request body must be a JSON object", "/")
    return body


def optional_str(body: dict[str, Any], key: str, error_key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise ApiError(error_key, f"{key} must be a string", f"/{key}")
    return value
