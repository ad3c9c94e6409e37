"""The per-user state directory, never a run's own folder: what a killed run leaves there is
found by the next run and by `conformance recover`.

`CONFORMANCE_STATE_DIR` overrides the platform's location (tests isolate themselves with it).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
from pathlib import Path
from typing import Any

import platformdirs

from conformance import atomic_file, settings

STATE_DIR_ENV = settings.STATE_DIR.name
APP_NAME = "edge-conformance"


def state_root() -> Path:
    """Where the state directory is (not created)."""
    explicit = settings.path(settings.STATE_DIR)
    return explicit if explicit else Path(platformdirs.user_state_dir(APP_NAME))


def state_dir() -> Path:
    """Root of the state directory (created on first use)."""
    root = state_root()
    root.mkdir(parents=True, exist_ok=True)
    return root


def sub_dir(name: str) -> Path:
    folder = state_dir() / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def zone_key(target: str, base_url: str, zone_id: str) -> str:
    """File-name key of one zone of one target: readable name plus a hash of all three."""
    digest = hashlib.sha256(f"{target}\n{base_url}\n{zone_id}".encode()).hexdigest()[:16]
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", target).strip(".-")[:40] or "target"
    return f"{readable}-{digest}"


def write_json(path: Path, document: dict[str, Any]) -> None:
    """Durable write: a temporary file in the same folder, fsync, rename, fsync the folder."""
    atomic_file.write_text(path, json.dumps(document, indent=2, sort_keys=True), private=True)


def create_json(path: Path, document: dict[str, Any]) -> bool:
    """Create `path` only if absent (atomic O_EXCL); False when another process has it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    atomic_file.fsync_dir(path.parent)
    return True


def read_json(path: Path) -> dict[str, Any] | None:
    """The document, or None when absent or unreadable (a torn file is never half-trusted)."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def host_name() -> str:
    return socket.gethostname()


def process_alive(pid: int, host: str, start_ticks: str | None = None) -> bool:
    """True when `pid` runs on this host (and, when known, is the same process: a reused pid
    has another start time); a run of another host always counts as alive (this machine
    cannot tell, so it never touches that run's resources)."""
    if host != host_name():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _proc_stat(pid)
    if fields is None:
        return True
    if fields[0] == "Z":
        return False
    return start_ticks is None or fields[19] == start_ticks


def process_start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid."""
    fields = _proc_stat(pid)
    return None if fields is None else fields[19]


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (state first), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return fields if len(fields) > 19 else None
