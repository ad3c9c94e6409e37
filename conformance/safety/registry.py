"""The runs of this machine: prefix, owning process and start time, one file per run.

A run registers before it creates anything on a target and unregisters once its cleanup is
done, so a file left here is a run that was killed (its process is gone) or one still running
(its process is alive): `recover` removes the resources of the first kind only.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from conformance.safety import statedir


@dataclass(frozen=True)
class RunRecord:
    run_prefix: str
    pid: int
    host: str
    started: str
    target: str
    targets_file: str | None = None
    start_ticks: str | None = None

    @property
    def alive(self) -> bool:
        return statedir.process_alive(self.pid, self.host, self.start_ticks)

    def describe(self) -> str:
        return f"run {self.run_prefix} (pid {self.pid} on {self.host}, started {self.started})"

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> RunRecord | None:
        try:
            return cls(
                run_prefix=str(doc["run_prefix"]),
                pid=int(doc["pid"]),
                host=str(doc["host"]),
                started=str(doc["started"]),
                target=str(doc["target"]),
                targets_file=doc.get("targets_file"),
                start_ticks=doc.get("start_ticks"),
            )
        except (KeyError, TypeError, ValueError):
            return None


def _path(run_prefix: str) -> Path:
    return statedir.sub_dir("runs") / f"{run_prefix}.json"


def _existing_path(run_prefix: str) -> Path | None:
    """The run's file if the state directory exists, without creating anything."""
    path = statedir.state_root() / "runs" / f"{run_prefix}.json"
    return path if path.is_file() else None


def new_record(run_prefix: str, owner_pid: int, target: str, targets_file: str | None) -> RunRecord:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    return RunRecord(
        run_prefix=run_prefix,
        pid=owner_pid,
        host=statedir.host_name(),
        started=now,
        target=target,
        targets_file=os.path.abspath(targets_file) if targets_file else None,
        start_ticks=statedir.process_start_ticks(owner_pid),
    )


def register(record: RunRecord) -> bool:
    """Idempotent: the first worker writes it (True), the others find it (False)."""
    return statedir.create_json(_path(record.run_prefix), asdict(record))


def unregister(run_prefix: str) -> None:
    path = _existing_path(run_prefix)
    if path is not None:
        path.unlink(missing_ok=True)


def lookup_existing(run_prefix: str) -> RunRecord | None:
    """Like `lookup`, but never creates the state directory (the plugin is inert unless used)."""
    path = _existing_path(run_prefix)
    doc = None if path is None else statedir.read_json(path)
    return None if doc is None else RunRecord.from_doc(doc)


def lookup(run_prefix: str) -> RunRecord | None:
    doc = statedir.read_json(_path(run_prefix))
    return None if doc is None else RunRecord.from_doc(doc)


def all_runs(target: str | None = None) -> list[RunRecord]:
    """Registered runs (of `target` when given), oldest first."""
    found = []
    for path in sorted(statedir.sub_dir("runs").glob("ec-*.json")):
        doc = statedir.read_json(path)
        record = None if doc is None else RunRecord.from_doc(doc)
        if record is not None and (target is None or record.target == target):
            found.append(record)
    return sorted(found, key=lambda r: r.started)


def dead_runs(target: str, exclude: str | None = None) -> list[RunRecord]:
    return [r for r in all_runs(target) if r.run_prefix != exclude and not r.alive]
