"""Zone rulesets: list, create, read, replace rules, delete, and the phase entry point.

Only one `kind: zone` ruleset may exist per phase and zone (decisions.md: 400, code 20217,
pointer /kind); PUT replaces every rule, bumps the ruleset version and keeps the id a rule is
sent with (its own version is bumped when the ruleset had it; decisions.md "Rule ids sent on
PUT").
"""

from __future__ import annotations

import copy
import re
from typing import Any

from reference_impl.mgmt.common import new_id, now_iso, optional_str, require_object
from reference_impl.mgmt.rule_validation import normalise_rules
from reference_impl.mgmt.state import MgmtState
from reference_impl.profile import Profile
from reference_impl.storage.clock import Clock
from reference_impl.wire.mgmt.envelope import ApiError, drop_fields

KINDS = ("zone", "custom")  # kinds a zone may create; managed / root belong to the provider
PHASES = (
    "http_log_custom_fields",
    "http_request_firewall_custom",
    "http_request_transform",
    "http_request_late_transform",
    "http_response_headers_transform",
    "http_request_redirect",
    "http_request_dynamic_redirect",
    "http_request_origin",
    "http_request_cache_settings",
    "http_config_settings",
    "http_custom_errors",
    "http_ratelimit",
)
RULE_ID = re.compile(r"[0-9a-f]{32}")
LIST_FIELDS = ("id", "name", "description", "kind", "phase", "version", "last_updated")


class Rulesets:
    def __init__(self, profile: Profile, state: MgmtState, clock: Clock) -> None:
        self.profile = profile
        self.state = state
        self.clock = clock  # server-wide: rulesets belong to no bucket

    def list_all(self, zone_id: str) -> list[dict[str, Any]]:
        items = self.state.rulesets(zone_id).values()
        listed = [{k: r[k] for k in LIST_FIELDS} for r in items]
        return [drop_fields(self.profile, "ruleset", item) for item in listed]

    def get(self, zone_id: str, ruleset_id: str) -> dict[str, Any]:
        ruleset = self.state.rulesets(zone_id).get(ruleset_id)
        if ruleset is None:
            raise ApiError("ruleset_not_found", ruleset_id)
        return self._shown(ruleset)

    def create(self, zone_id: str, body: Any) -> dict[str, Any]:
        body = require_object(body, "ruleset_invalid")
        name = optional_str(body, "name", "ruleset_invalid")
        if not name:
            raise ApiError("ruleset_invalid", "name is required", "/name")
        kind, phase = body.get("kind"), body.get("phase")
        if kind not in KINDS:
            raise ApiError("ruleset_invalid", f"kind must be one of {', '.join(KINDS)}", "/kind")
        if phase not in PHASES:
            raise ApiError("ruleset_invalid", "phase is missing or unknown", "/phase")
        if (
            kind == "zone"
            and self.state.entrypoint(zone_id, phase) is not None
            and not self.profile.deviations.allow_second_zone_ruleset
        ):
            raise ApiError("zone_ruleset_exists", f"phase {phase}", "/kind")
        description = optional_str(body, "description", "ruleset_invalid") or ""
        rules = normalise_rules(self.profile, phase, body.get("rules", []))
        now = now_iso(self.profile, self.clock.now())
        ruleset = {
            "id": new_id(self.profile),
            "name": name,
            "description": description,
            "kind": kind,
            "phase": phase,
            "version": "1",
            "last_updated": now,
            "rules": self._stamped(rules, [], now),
        }
        self.state.rulesets(zone_id)[ruleset["id"]] = ruleset
        self.state.save()
        return self._shown(ruleset)

    def update(self, zone_id: str, ruleset_id: str, body: Any) -> dict[str, Any]:
        ruleset = self.state.rulesets(zone_id).get(ruleset_id)
        if ruleset is None:
            raise ApiError("ruleset_not_found", ruleset_id)
        return self._replace(ruleset, body)

    def delete(self, zone_id: str, ruleset_id: str) -> None:
        if self.profile.deviations.ruleset_delete_keeps:
            return
        if self.state.rulesets(zone_id).pop(ruleset_id, None) is None:
            raise ApiError("ruleset_not_found", ruleset_id)
        self.state.save()

    def get_entrypoint(self, zone_id: str, phase: str) -> dict[str, Any]:
        if phase not in PHASES:
            raise ApiError("route_not_found", f"unknown phase {phase}")
        ruleset = self.state.entrypoint(zone_id, phase)
        if ruleset is None:
            raise ApiError("entrypoint_not_found", phase)
        return self._shown(ruleset)

    def put_entrypoint(self, zone_id: str, phase: str, body: Any) -> dict[str, Any]:
        if phase not in PHASES:
            raise ApiError("route_not_found", f"unknown phase {phase}")
        ruleset = self.state.entrypoint(zone_id, phase)
        if ruleset is not None:
            return self._replace(ruleset, body)
        body = require_object(body, "ruleset_invalid")
        created = {"name": "default", "kind": "zone", "phase": phase, "rules": []}
        created.update({k: body[k] for k in ("name", "description", "rules") if k in body})
        return self.create(zone_id, created)

    # -- internals --------------------------------------------------------------------------
    def _replace(self, ruleset: dict[str, Any], body: Any) -> dict[str, Any]:
        body = require_object(body, "ruleset_invalid")
        for key in ("kind", "phase"):
            if key in body and body[key] != ruleset[key]:
                raise ApiError("ruleset_invalid", f"{key} cannot change", f"/{key}")
        if "rules" not in body:
            raise ApiError("rule_invalid", "rules is required", "/rules")
        rules = normalise_rules(self.profile, ruleset["phase"], body["rules"])
        for key in ("name", "description"):
            value = optional_str(body, key, "ruleset_invalid")
            if value is not None:
                ruleset[key] = value
        now = now_iso(self.profile, self.clock.now())
        stamped = self._stamped(rules, ruleset["rules"], now)
        if self.profile.deviations.put_appends_rules:
            stamped = ruleset["rules"] + stamped
        ruleset["rules"] = stamped
        if not self.profile.deviations.static_version:
            ruleset["version"] = str(int(ruleset["version"]) + 1)
        ruleset["last_updated"] = now
        self.state.save()
        return self._shown(ruleset)

    def _stamped(
        self, rules: list[dict[str, Any]], previous: list[dict[str, Any]], now: str
    ) -> list[dict[str, Any]]:
        """Give every rule its server fields; a rule sent with a known id keeps it."""
        known = {rule["id"]: rule for rule in previous}
        out: list[dict[str, Any]] = []
        for rule in rules:
            before = known.get(rule.get("id", ""))
            rule_id = self._kept_id(rule, out)
            version = str(int(before.get("version", "0")) + 1) if before else "1"
            stamped = {
                "id": rule_id,
                "version": version,
                "action": rule["action"],
                "expression": rule["expression"],
                "description": rule.get("description", ""),
                "last_updated": now,
                "ref": rule.get("ref") or (before or {}).get("ref") or rule_id,
                "enabled": rule.get("enabled", True),
            }
            if "action_parameters" in rule:
                stamped["action_parameters"] = rule["action_parameters"]
            out.append(stamped)
        return out

    def _kept_id(self, rule: dict[str, Any], out: list[dict[str, Any]]) -> str:
        """The id a rule keeps: the one it was sent with when that is a rule id (32 hex) not
        yet taken in this request, known or not (decisions.md "Rule ids sent on PUT": a
        client that puts saved rules back gets their ids back); otherwise a new one."""
        sent = rule.get("id")
        taken = {r["id"] for r in out}
        if isinstance(sent, str) and RULE_ID.fullmatch(sent) and sent not in taken:
            return str(sent)
        return new_id(self.profile)

    def _shown(self, ruleset: dict[str, Any]) -> dict[str, Any]:
        shown = drop_fields(self.profile, "ruleset", copy.deepcopy(ruleset))
        for rule in shown.get("rules", []):
            drop_fields(self.profile, "rule", rule)
        return shown
