"""A full disk (or an exhausted quota) as one exception, so that surfaces can say what it is.

Without it ENOSPC from a blob write, or SQLITE_FULL from a metadata commit, reached the
handlers as an unexpected error and became 500 InternalError. The storage engine raises
`StorageFull` after undoing what it had written (no row, no blob, no temp file); the S3 surface
answers 507 InsufficientStorage (docs/reference-choices.md).
"""

from __future__ import annotations

import errno
import sqlite3

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


class StorageFull(Exception):
    """No space (or quota) left for a write; nothing of it was kept."""


def is_full(exc: BaseException) -> bool:
    """Whether `exc` is the file system or SQLite saying that no space is left."""
    if isinstance(exc, OSError):
        return exc.errno in FULL_ERRNOS
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        return code is not None and code & 0xFF == sqlite3.SQLITE_FULL
    return False
