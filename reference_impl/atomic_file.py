"""Replace a file whole, so that a crash leaves the old content or the new, never a mix.

The one place the reference writes to a temp file and renames it over the target: the data is
flushed and fsynced before the rename, and the directory after it, so that the rename itself
survives a power loss (the domain registry, the management state, TLS files, the ready file).
"""

from __future__ import annotations

import os
from pathlib import Path


def replace_file(path: Path, data: bytes, private: bool = False) -> None:
    """Write `data` to `path` atomically and durably; `private` makes a new file owner-only."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o666)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    sync_directory(path.parent)


def sync_directory(directory: Path | str) -> None:
    """Make a rename in `directory` durable: fsync the directory's own entry table."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
