"""Persisted state of the management API: one JSON document, rewritten atomically.

The state is small (rulesets, jobs, ownership tokens), so a whole-file rewrite after each change
is simpler than a database and still survives restarts and crashes (temp file, fsync, rename).
All handlers run on the server's one event loop and never await between read and write, so a
lock only guards against callers from other threads (e.g. the edge surface reading config).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from reference_impl.atomic_file import replace_file

# every array a log_custom_field rule may hold (validation decides which are in force at a date)
CUSTOM_FIELD_ARRAYS = (
    "request_fields",
    "transformed_request_fields",
    "response_fields",
    "raw_response_fields",
    "cookie_fields",
)
PRESERVE_DUPLICATES = "preserve_duplicates"


class MgmtState:
    """Rulesets, log push jobs and ownership challenges per zone."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.path = root / "state.json"
        self._lock = threading.RLock()
        self.doc: dict[str, Any] = {"rulesets": {}, "jobs": {}, "challenges": {}, "next_job": 1}
        self.size = 0  # characters of the document as last written (or read)
        if self.path.exists():
            text = self.path.read_text(encoding="utf-8")
            self.doc.update(json.loads(text))
            self.size = len(text)

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    def save(self) -> None:
        """Write the whole document. `json.dumps` without indent runs the C encoder
        (`json.dump` to a file, or any indent, runs the pure-Python one, ~10x slower on the
        event loop); `size` lets the API refuse growth past `mgmt_state_max_bytes`. Keys keep
        their insertion order (no sort_keys): a zone's challenges are evicted oldest first,
        and that order must survive a restart."""
        with self._lock:
            text = json.dumps(self.doc, allow_nan=False)
            replace_file(self.path, text.encode("utf-8"))
            self.size = len(text)

    # -- rulesets -------------------------------------------------------------------------
    def rulesets(self, zone_id: str) -> dict[str, dict[str, Any]]:
        zones: dict[str, dict[str, dict[str, Any]]] = self.doc["rulesets"]
        return zones.setdefault(zone_id, {})

    def entrypoint(self, zone_id: str, phase: str) -> dict[str, Any] | None:
        for ruleset in self.rulesets(zone_id).values():
            if ruleset["kind"] == "zone" and ruleset["phase"] == phase:
                return ruleset
        return None

    def custom_fields(self, zone_id: str) -> dict[str, list[str]]:
        """Configured custom field names per array, in configuration order (for the log producer).

        Every array the rules may name is a key (empty when unused); `preserve_duplicates` is a
        key too, holding `["true"]` when an enabled rule asks for it.
        """
        out: dict[str, list[str]] = {k: [] for k in CUSTOM_FIELD_ARRAYS}
        preserve = False
        with self._lock:
            ruleset = self.entrypoint(zone_id, "http_log_custom_fields")
            for rule in (ruleset or {}).get("rules", []):
                if not rule.get("enabled", True):
                    continue
                params = rule.get("action_parameters") or {}
                preserve = preserve or params.get("preserve_duplicates") is True
                for key, names in out.items():
                    names.extend(item["name"] for item in params.get(key) or [])
        out[PRESERVE_DUPLICATES] = ["true"] if preserve else []
        return out

    # -- log push jobs ----------------------------------------------------------------------
    def jobs(self, zone_id: str) -> dict[str, dict[str, Any]]:
        zones: dict[str, dict[str, dict[str, Any]]] = self.doc["jobs"]
        return zones.setdefault(zone_id, {})

    def next_job_id(self) -> int:
        job_id = int(self.doc["next_job"])
        self.doc["next_job"] = job_id + 1
        return job_id

    def challenges(self, zone_id: str) -> dict[str, str]:
        zones: dict[str, dict[str, str]] = self.doc["challenges"]
        return zones.setdefault(zone_id, {})
