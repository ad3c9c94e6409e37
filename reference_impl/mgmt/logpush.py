"""Log push jobs and destination ownership challenges.

A job may only be created for a destination whose ownership challenge was answered: the
challenge file is written to the destination and its token must come back in
`ownership_challenge`. An r2:// destination whose bucket exists in the reference's storage gets
the challenge as an object (the suite reads it back over S3, as on the real service); other
object-store destinations are written below `data_dir/ownership/`; http(s) ones get a POST.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from reference_impl import outbound
from reference_impl.mgmt.common import require_object
from reference_impl.mgmt.logpush_checks import (
    check_dataset,
    check_destination,
    check_logpull_options,
    check_name,
)
from reference_impl.mgmt.state import MgmtState
from reference_impl.profile import Profile
from reference_impl.storage.engine import BucketGone
from reference_impl.wire.mgmt.envelope import ApiError, drop_fields


class Jobs:
    def __init__(
        self,
        profile: Profile,
        state: MgmtState,
        data_dir: Path,
        store: Any = None,
        account_id: str = "",
    ) -> None:
        self.profile = profile
        self.state = state
        self.ownership_root = data_dir / "ownership"
        self.store = store  # reference_impl.storage.engine.Store, for r2:// challenges
        self.account_id = account_id

    # -- ownership ------------------------------------------------------------------------
    async def ownership(self, zone_id: str, body: Any) -> dict[str, Any]:
        body = require_object(body, "destination_invalid")
        destination = check_destination(self.profile, body.get("destination_conf"))
        token = (
            "" if self.profile.deviations.empty_ownership_challenge else secrets.token_urlsafe(48)
        )
        parts = urlsplit(destination)
        folder = parts.path.strip("/")
        name = f"ownership-challenge-{secrets.token_hex(4)}.txt"
        filename = f"{folder}/{name}" if folder else name
        if parts.scheme in ("http", "https"):
            await self._post_challenge(destination, token)
        elif parts.scheme == "r2" and self._has_bucket(parts.netloc):
            await self._store_challenge(parts.netloc, filename, token)
        else:
            target = self.ownership_root / parts.scheme / parts.netloc / filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(token, encoding="utf-8")
        self._remember_challenge(zone_id, destination, token)
        self.state.save()
        return {"filename": filename, "valid": True, "message": ""}

    def _remember_challenge(self, zone_id: str, destination: str, token: str) -> None:
        """Keep the zone's newest `logpush_max_challenges_per_zone` challenges (a bound on a
        state that grew with every destination ever asked for)."""
        challenges = self.state.challenges(zone_id)
        challenges.pop(destination, None)
        challenges[destination] = token
        keep = max(1, int(self.profile.logpush_max_challenges_per_zone))
        for oldest in list(challenges)[:-keep]:
            del challenges[oldest]

    def _has_bucket(self, bucket: str) -> bool:
        return self.store is not None and self.store.get_bucket(self.account_id, bucket) is not None

    async def _store_challenge(self, bucket: str, key: str, token: str) -> None:
        async def chunks() -> AsyncIterator[bytes]:
            yield token.encode()

        blob = await self.store.write_blob(chunks())
        meta: dict[str, Any] = {"user": {}, "http": {}}
        try:
            self.store.put_object(self.account_id, bucket, key, blob, "text/plain", meta)
        except BucketGone:  # deleted while the challenge was written
            raise ApiError(
                "destination_invalid", f"bucket {bucket!r} does not exist", "/destination_conf"
            ) from None

    async def _post_challenge(self, destination: str, token: str) -> None:
        """The challenge POST, bounded in total by `logpush_timeout_s` (generous: a collector
        on a busy machine, or in a paused process, answers late; issue 22)."""
        total = float(self.profile.logpush_timeout_s)
        error = await outbound.post(destination, token.encode(), {}, total)
        if error is not None:
            raise ApiError("destination_invalid", error, "/destination_conf")

    def _check_challenge(self, zone_id: str, destination: str, token: Any) -> None:
        if self.profile.deviations.skip_ownership_check:
            return
        expected = self.state.challenges(zone_id).get(destination)
        if not isinstance(token, str) or not token:
            raise ApiError(
                "ownership_invalid", "ownership_challenge is required", "/ownership_challenge"
            )
        if expected is None or not secrets.compare_digest(expected, token):
            raise ApiError(
                "ownership_invalid",
                "the token does not match the challenge sent to this destination",
                "/ownership_challenge",
            )

    # -- jobs -----------------------------------------------------------------------------
    def list_all(self, zone_id: str) -> list[dict[str, Any]]:
        jobs = sorted(self.state.jobs(zone_id).values(), key=lambda j: int(j["id"]))
        return [self._shown(job) for job in jobs]

    def get(self, zone_id: str, job_id: str) -> dict[str, Any]:
        return self._shown(self._find(zone_id, job_id))

    def create(self, zone_id: str, body: Any) -> dict[str, Any]:
        body = require_object(body, "job_invalid")
        name = check_name(body.get("name"))
        destination = check_destination(self.profile, body.get("destination_conf"))
        dataset = check_dataset(self.profile, body.get("dataset"))
        options = check_logpull_options(self.profile, body.get("logpull_options"), dataset)
        enabled = self._enabled(body.get("enabled"), False)
        self._check_challenge(zone_id, destination, body.get("ownership_challenge"))
        if len(self.state.jobs(zone_id)) >= int(self.profile.logpush_max_jobs_per_zone):
            # each job keeps its own pending lines: the cap bounds log delivery's memory
            raise ApiError("job_limit")
        job = {
            "id": self.state.next_job_id(),
            "name": name,
            "dataset": dataset,
            "destination_conf": destination,
            "logpull_options": options,
            "enabled": enabled,
            "last_complete": None,
            "last_error": None,
            "error_message": None,
        }
        self.state.jobs(zone_id)[str(job["id"])] = job
        self.state.save()
        return self._shown(job)

    def update(self, zone_id: str, job_id: str, body: Any) -> dict[str, Any]:
        job = self._find(zone_id, job_id)
        body = require_object(body, "job_invalid")
        if "dataset" in body and body["dataset"] != job["dataset"]:
            raise ApiError("job_invalid", "dataset cannot change", "/dataset")
        changes: dict[str, Any] = {}
        if "name" in body:
            changes["name"] = check_name(body["name"])
        if "destination_conf" in body and body["destination_conf"] != job["destination_conf"]:
            destination = check_destination(self.profile, body["destination_conf"])
            self._check_challenge(zone_id, destination, body.get("ownership_challenge"))
            changes["destination_conf"] = destination
        if "logpull_options" in body:
            changes["logpull_options"] = check_logpull_options(
                self.profile, body["logpull_options"], job["dataset"]
            )
        if "enabled" in body:
            changes["enabled"] = self._enabled(body["enabled"], job["enabled"])
        if not self.profile.deviations.job_update_ignored:
            job.update(changes)
            self.state.save()
        return self._shown(job)

    def delete(self, zone_id: str, job_id: str) -> dict[str, Any]:
        job = self._find(zone_id, job_id)
        if not self.profile.deviations.job_delete_keeps:
            del self.state.jobs(zone_id)[str(job["id"])]
            self.state.save()
        return {"id": self._shown(job)["id"]}

    # -- internals --------------------------------------------------------------------------
    def _find(self, zone_id: str, job_id: str) -> dict[str, Any]:
        job = self.state.jobs(zone_id).get(job_id) if job_id.isdigit() else None
        if job is None:
            raise ApiError("job_not_found", job_id)
        return job

    @staticmethod
    def _enabled(value: Any, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ApiError("job_invalid", "enabled must be a boolean", "/enabled")
        return value

    def _shown(self, job: dict[str, Any]) -> dict[str, Any]:
        shown = copy.deepcopy(job)
        if self.profile.deviations.job_string_ids:
            shown["id"] = str(shown["id"])
        return drop_fields(self.profile, "job", shown)
