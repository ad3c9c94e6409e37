"""Checks of the rules of an `http_log_custom_fields` ruleset (spec "Rule" + decisions.md).

The arrays of action_parameters and the field limits are dated profile fields: the spec's three
arrays and 40 fields in total, and from 2025-04-18 (the provider's change) five arrays, 100
names per array and `preserve_duplicates`; a header is logged raw or transformed, not both.
Every refusal names the offending field with a JSON pointer relative to the request body.
Deviation fields of the profile switch single checks off so the suite can be shown to notice.
"""

from __future__ import annotations

import re
from typing import Any

from reference_impl.profile import Profile
from reference_impl.wire.mgmt.envelope import ApiError

LOG_PHASE = "http_log_custom_fields"
ACTION = "log_custom_field"
COOKIE_ARRAY = "cookie_fields"
# arrays naming the same headers, one raw and one transformed: a name may be in only one of them
TWINS = (
    ("request_fields", "transformed_request_fields"),
    ("response_fields", "raw_response_fields"),
)
HEADER_TOKEN = re.compile(r"\A[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")


def normalise_rules(profile: Profile, phase: str, rules: Any) -> list[dict[str, Any]]:
    """Validate the `rules` member of a request and return the rules as they will be stored."""
    if not isinstance(rules, list):
        raise ApiError("rule_invalid", "rules must be an array", "/rules")
    out = [_rule(profile, phase, index, rule) for index, rule in enumerate(rules)]
    if phase == LOG_PHASE and not profile.deviations.ignore_field_limit:
        _check_field_count(profile, out)
    if phase == LOG_PHASE and not profile.deviations.raw_and_transformed_both:
        _check_twins(out)
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
    for key, kind in (("id", str), ("description", str), ("ref", str), ("enabled", bool)):
        if key in rule and rule[key] is not None and not isinstance(rule[key], kind):
            raise ApiError("rule_invalid", f"{key} has the wrong type", f"{at}/{key}")
    params = rule.get("action_parameters")
    if phase == LOG_PHASE:
        if action != ACTION and not profile.deviations.accept_any_action:
            raise ApiError("rule_invalid", f"action must be {ACTION!r}", f"{at}/action")
        if expression != "true" and not profile.deviations.accept_any_expression:
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
        if profile.deviations.accept_empty_action_parameters and params is None:
            return {}
        raise ApiError("rule_invalid", "action_parameters must be an object", at)
    arrays: list[str] = list(profile.custom_field_arrays)
    present = [key for key in arrays if params.get(key) is not None]
    if not present and not profile.deviations.accept_empty_action_parameters:
        raise ApiError("rule_invalid", "name at least one of " + ", ".join(arrays), at)
    out: dict[str, Any] = {}
    for key in present:
        items = params[key]
        if not isinstance(items, list):
            raise ApiError("rule_invalid", f"{key} must be an array", f"{at}/{key}")
        out[key] = [
            {"name": _field_name(profile, key, f"{at}/{key}/{j}", item)}
            for j, item in enumerate(items)
        ]
    if profile.custom_fields_preserve_duplicates and "preserve_duplicates" in params:
        flag = params["preserve_duplicates"]
        if not isinstance(flag, bool):
            raise ApiError(
                "rule_invalid", "preserve_duplicates is a boolean", f"{at}/preserve_duplicates"
            )
        out["preserve_duplicates"] = flag
    return out


def _field_name(profile: Profile, array: str, at: str, item: Any) -> str:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ApiError("rule_invalid", "each field is an object with a string name", at)
    name: str = item["name"]
    if not name:
        if profile.deviations.accept_empty_field_name:
            return name
        raise ApiError("rule_invalid", "the field name is empty", f"{at}/name")
    if not HEADER_TOKEN.match(name):
        raise ApiError("rule_invalid", f"{name!r} is not a valid name", f"{at}/name")
    if array == COOKIE_ARRAY:
        return name.lower() if profile.deviations.lowercase_cookie_names else name
    if name != name.lower():
        if profile.deviations.lowercase_header_names:
            return name.lower()
        raise ApiError("rule_invalid", f"header name {name!r} must be lower case", f"{at}/name")
    return name


def _check_field_count(profile: Profile, rules: list[dict[str, Any]]) -> None:
    """The limit in force: across every array (the spec's 40) or per array (100 from 2025)."""
    total_max, per_array_max = profile.custom_fields_total_max, profile.custom_fields_per_array_max
    if profile.deviations.custom_fields_max:  # a lower limit, wherever one is in force
        total_max = profile.deviations.custom_fields_max if total_max else None
        per_array_max = profile.deviations.custom_fields_max if per_array_max else None
    seen = 0
    per_array: dict[str, int] = {}
    for index, rule in enumerate(rules):
        params = rule.get("action_parameters") or {}
        for key in profile.custom_field_arrays:
            for j, _ in enumerate(params.get(key) or []):
                seen += 1
                per_array[key] = per_array.get(key, 0) + 1
                at = f"/rules/{index}/action_parameters/{key}/{j}"
                if total_max is not None and seen > total_max:
                    raise ApiError(
                        "fields_limit", f"at most {total_max} custom fields in total", at
                    )
                if per_array_max is not None and per_array[key] > per_array_max:
                    raise ApiError("fields_limit", f"at most {per_array_max} names in {key}", at)


def _check_twins(rules: list[dict[str, Any]]) -> None:
    """A header is logged raw or transformed, not both (the provider's custom-fields page)."""
    for raw_key, other_key in TWINS:
        named: set[str] = set()
        for rule in rules:
            named.update(
                i["name"] for i in (rule.get("action_parameters") or {}).get(raw_key) or []
            )
        for index, rule in enumerate(rules):
            params = rule.get("action_parameters") or {}
            for j, item in enumerate(params.get(other_key) or []):
                if item["name"] in named:
                    raise ApiError(
                        "rule_invalid",
                        f"{item['name']!r} is named in both {raw_key} and {other_key}",
                        f"/rules/{index}/action_parameters/{other_key}/{j}/name",
                    )
