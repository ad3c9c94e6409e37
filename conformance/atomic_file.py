"""Write a file so that a reader sees the old content or the new, never half, also after a crash.

The one way the suite writes a file others may read while it changes (results.json, the HTML
report, the safety journal): a temporary file in the same directory, flushed and fsynced,
renamed over the target (os.replace, atomic on POSIX and Windows), then the directory fsynced
so that the rename itself survives a power loss.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_bytes(path: str | Path, data: bytes, *, private: bool = False) -> Path:
    """Replace `path` with `data` atomically and durably; its directory is created. The file
    is readable as any new file is (the umask decides), or by its owner only when `private`."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fd = os.open(tmp, flags, 0o600 if private else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)
    return target


def write_text(path: str | Path, text: str, *, private: bool = False) -> Path:
    """`write_bytes` of `text` in UTF-8."""
    return write_bytes(path, text.encode("utf-8"), private=private)


def fsync_dir(folder: Path) -> None:
    """Make a rename or creation in `folder` durable; a no-op where directories cannot be
    opened (Windows) or synced."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
