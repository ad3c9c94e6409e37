"""Checks of the rules of an `http_log_custom_fields` ruleset (spec "Rule" + decisions.md).

Every refusal names the offending field with a JSON pointer relative to the request body.
Deviation fields of the profile switch single checks off so the suite can be shown to notice.
"""

from __future__ import annotations

import re
from typing import Any

from reference_impl.mgmt.envelope import ApiError
from reference_impl.profile import Profile

LOG_PHASE = "http_log_custom_fields"
ACTION = "log_custom_field"
FIELD_ARRAYS = ("request_fields", "response_fields", "cookie_fields")
MAX_CUSTOM_FIELDS = 40  # spec "Limits": 40 in total across the three arrays
HEADER_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def normalise_rules(profile: Profile, phase: str, rules: Any) -> list[dict[str, Any]]:
    """Validate the `rules` member of a request and return the rules as they will be stored."""
    if not isinstance(rules, list):
        raise ApiError("rule_invalid", "rules must be an array", "/rules")
    out = [_rule(profile, phase, index, rule) for index, rule in enumerate(rules)]
    if phase == LOG_PHASE and not profile.deviate_ignore_field_limit:
        _check_field_count(out, profile.deviate_custom_fields_max or MAX_CUSTOM_FIELDS)
    return out


def _rule(profile: Profile, phase: str, index: int, rule: Any) -> dict[str, Any]:
    at = f"/rules/{index}"
    if not isinstance(rule, dict):
        raise ApiError("rule_invalid", "a rule must be an object", at)
    action = rule.get("action")
    expression = rule.get("expression")
    if not isinstance(action, str) or not action:
        raise ApiError("rule_invalid", "action is required", f"{at}/action")
    if not isinstance(expression, str) or not expression:
        raise ApiError("rule_invalid", "expression is required", f"{at}/expression")
    for key, kind in (("description", str), ("ref", str), ("enabled", bool)):
        if key in rule and rule[key] is not None and not isinstance(rule[key], kind):
            raise ApiError("rule_invalid", f"{key} has the wrong type", f"{at}/{key}")
    params = rule.get("action_parameters")
    if phase == LOG_PHASE:
        if action != ACTION and not profile.deviate_accept_any_action:
            raise ApiError("rule_invalid", f"action must be {ACTION!r}", f"{at}/action")
        if expression != "true" and not profile.deviate_accept_any_expression:
            raise ApiError("rule_invalid", "expression must be 'true'", f"{at}/expression")
        params = _log_parameters(profile, at, params)
    elif params is not None and not isinstance(params, dict):
        raise ApiError(
            "rule_invalid", "action_parameters must be an object", f"{at}/action_parameters"
        )
    kept = {k: rule[k] for k in ("id", "description", "ref", "enabled") if rule.get(k) is not None}
    kept.update(action=action, expression=expression)
    if params is not None:
        kept["action_parameters"] = params
    return kept


def _log_parameters(profile: Profile, at: str, params: Any) -> dict[str, Any]:
    at = f"{at}/action_parameters"
    if not isinstance(params, dict):
        if profile.deviate_accept_empty_action_parameters and params is None:
            return {}
        raise ApiError("rule_invalid", "action_parameters must be an object", at)
    present = [key for key in FIELD_ARRAYS if params.get(key) is not None]
    if not present and not profile.deviate_accept_empty_action_parameters:
        raise ApiError("rule_invalid", "name at least one of " + ", ".join(FIELD_ARRAYS), at)
    out: dict[str, Any] = {}
    for key in present:
        items = params[key]
        if not isinstance(items, list):
            raise ApiError("rule_invalid", f"{key} must be an array", f"{at}/{key}")
        out[key] = [
            {"name": _field_name(profile, key, f"{at}/{key}/{j}", item)}
            for j, item in enumerate(items)
        ]
    return out


def _field_name(profile: Profile, array: str, at: str, item: Any) -> str:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ApiError("rule_invalid", "each field is an object with a string name", at)
    name: str = item["name"]
    if not name:
        if profile.deviate_accept_empty_field_name:
            return name
        raise ApiError("rule_invalid", "the field name is empty", f"{at}/name")
    if not HEADER_TOKEN.match(name):
        raise ApiError("rule_invalid", f"{name!r} is not a valid name", f"{at}/name")
    if array == "cookie_fields":
        return name.lower() if profile.deviate_lowercase_cookie_names else name
    if name != name.lower():
        if profile.deviate_lowercase_header_names:
            return name.lower()
        raise ApiError("rule_invalid", f"header name {name!r} must be lower case", f"{at}/name")
    return name


def _check_field_count(rules: list[dict[str, Any]], limit: int) -> None:
    seen = 0
    for index, rule in enumerate(rules):
        params = rule.get("action_parameters") or {}
        for key in FIELD_ARRAYS:
            for j, _ in enumerate(params.get(key) or []):
                seen += 1
                if seen > limit:
                    raise ApiError(
                        "fields_limit",
                        f"at most {limit} custom fields in total",
                        f"/rules/{index}/action_parameters/{key}/{j}",
                    )
