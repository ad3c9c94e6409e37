"""The zone's entry point as the run found it, on disk before the run changes it.

One journal file per zone (`journal/<zone key>.json`): the snapshot, the exact request that
puts it back, and the run that wrote it. It is removed only once a restore has been checked;
a file left behind is a pending restore that `conformance recover` (or nobody else) applies.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.clients.rules_api import LOG_PHASE, RulesApiClient
from conformance.safety import statedir

# What a rule is restored with: everything the update request accepts (id and ref included,
# so a provider that keeps client-sent ids keeps the user's), nothing the server stamps.
RULE_KEYS = ("id", "ref", "action", "expression", "description", "action_parameters", "enabled",
             "logging")  # fmt: skip
COMPARED_KEYS = ("action", "expression", "description", "action_parameters", "enabled", "ref")
OK_STATUSES = (200, 204)


def journal_path(key: str) -> Path:
    return statedir.sub_dir("journal") / f"{key}.json"


def read(key: str) -> dict[str, Any] | None:
    return statedir.read_json(journal_path(key))


def restoring_rule(rule: dict[str, Any]) -> dict[str, Any]:
    return {k: rule[k] for k in RULE_KEYS if k in rule}


def snapshot(client: RulesApiClient) -> dict[str, Any]:
    """The entry point now (`existed` False when the zone has none), with its full rules."""
    listed = client.find_zone_ruleset()
    if listed is None:
        return {"existed": False, "ruleset": None}
    full = client.get_ruleset(str(listed["id"])).assert_envelope_ok(200)
    if not isinstance(full, dict) or not isinstance(full.get("rules", []), list):
        raise RuntimeError(f"the entry point cannot be read back: {full!r}")
    return {"existed": True, "ruleset": full}


def restore_request(client: RulesApiClient, snap: dict[str, Any]) -> dict[str, Any]:
    """The request that puts `snap` back (PUT the rules, or DELETE the entry point)."""
    ruleset = snap.get("ruleset")
    if not snap.get("existed") or not isinstance(ruleset, dict):
        return {"method": "DELETE", "path": client.zone("/rulesets/<the entry point's id>")}
    body = {
        "description": ruleset.get("description", ""),
        "rules": [restoring_rule(r) for r in ruleset.get("rules") or []],
    }
    return {"method": "PUT", "path": client.zone(f"/rulesets/{ruleset['id']}"), "body": body}


def write(
    key: str,
    client: RulesApiClient,
    snap: dict[str, Any],
    run_prefix: str,
    target: str,
    targets_file: str | None,
) -> Path:
    document = {
        "format": 1,
        "run_prefix": run_prefix,
        "target": target,
        "targets_file": targets_file,
        "base_url": client.base_url,
        "zone_id": client.zone_id,
        "phase": LOG_PHASE,
        "written": dt.datetime.now(dt.UTC).isoformat(),
        "snapshot": snap,
        "restore": restore_request(client, snap),
    }
    path = journal_path(key)
    statedir.write_json(path, document)
    return path


def discard(key: str, run_prefix: str) -> None:
    doc = read(key)
    if doc is not None and doc.get("run_prefix") == run_prefix:
        journal_path(key).unlink(missing_ok=True)


@dataclass
class Outcome:
    """A restore's result: `problems` make it failed; `notes` are changes it could not avoid."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def restore(client: RulesApiClient, doc: dict[str, Any]) -> Outcome:
    """Apply the journal's restore and read the zone back to check it; never raises."""
    outcome = Outcome()
    try:
        if doc["snapshot"].get("existed"):
            _put_back(client, doc, outcome)
        else:
            _remove_created(client, outcome)
    except Exception as exc:
        outcome.problems.append(f"restore raised {exc!r}")
    return outcome


def _remove_created(client: RulesApiClient, outcome: Outcome) -> None:
    current = client.find_zone_ruleset()
    if current is None:
        return
    reply = client.delete_ruleset(str(current["id"]))
    if reply.status not in OK_STATUSES:
        outcome.problems.append(f"DELETE entry point answered {reply.status}: {reply.text[:300]}")
        return
    if client.find_zone_ruleset() is not None:
        outcome.problems.append("the entry point the run created is still listed after DELETE")


def _put_back(client: RulesApiClient, doc: dict[str, Any], outcome: Outcome) -> None:
    saved: dict[str, Any] = doc["snapshot"]["ruleset"]
    body: dict[str, Any] = doc["restore"]["body"]
    current = client.find_zone_ruleset()
    if current is None:
        create = {"name": saved.get("name") or "default", "kind": "zone", "phase": LOG_PHASE}
        reply = client.create_ruleset({**create, **body})
        outcome.notes.append(f"the entry point {saved['id']} was gone; created it again")
    else:
        if str(current["id"]) != str(saved["id"]):
            outcome.notes.append(f"the entry point's id changed: {saved['id']} -> {current['id']}")
        reply = client.update_ruleset(str(current["id"]), body)
        if 400 <= reply.status < 500 and any("id" in rule for rule in body["rules"]):
            # a target that refuses client-sent rule ids: the rules come back with new ones
            without = [{k: v for k, v in rule.items() if k != "id"} for rule in body["rules"]]
            reply = client.update_ruleset(str(current["id"]), {**body, "rules": without})
            outcome.notes.append("the target refused the saved rule ids; restored without them")
    if reply.status != 200 or not reply.is_envelope or reply.json.get("success") is not True:
        outcome.problems.append(
            f"{reply.method} of the saved rules answered {reply.status}: {reply.text[:300]}"
        )
        return
    result = reply.result if isinstance(reply.result, dict) else {}
    ruleset_id = str(result.get("id") or (current or {}).get("id"))
    now = client.get_ruleset(ruleset_id).assert_envelope_ok(200)
    compare(saved, now, outcome)


def compare(saved: dict[str, Any], now: dict[str, Any], outcome: Outcome) -> None:
    """Rules' content, order, flags and descriptions must match; id changes are noted."""
    if (now.get("description") or "") != (saved.get("description") or ""):
        outcome.problems.append(
            f"ruleset description is {now.get('description')!r}, was {saved.get('description')!r}"
        )
    before, after = saved.get("rules") or [], now.get("rules") or []
    if len(before) != len(after):
        outcome.problems.append(f"{len(after)} rules after the restore, {len(before)} before")
        return
    moved = []
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        for key in COMPARED_KEYS:
            if key in old and old.get(key) != new.get(key):
                outcome.problems.append(
                    f"rule {index + 1} {key}: {new.get(key)!r}, was {old.get(key)!r}"
                )
        if old.get("id") and old.get("id") != new.get("id"):
            moved.append(f"{old['id']} -> {new.get('id')}")
    if moved:
        outcome.notes.append("rule ids changed (the target did not keep them): " + ", ".join(moved))
