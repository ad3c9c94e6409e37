"""Delete exactly the buckets this run created: those whose name starts with its prefix.

Cleanup never raises: a bucket it cannot delete becomes a warning, so that a broken target
does not hide the run's real results behind a crash.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest


class CleanupWarning(pytest.PytestWarning):
    """A resource of the run could not be removed."""


def delete_bucket(s3: Any, name: str) -> None:
    try:
        s3.delete_bucket_recursive(name)
    except Exception as exc:
        warnings.warn(CleanupWarning(f"cleanup: bucket {name!r} not deleted: {exc}"), stacklevel=2)


def delete_prefixed(s3: Any, prefix: str) -> list[str]:
    """Delete every bucket starting with `prefix`; returns the names it tried."""
    if not prefix.startswith("ec-"):
        raise ValueError(f"refusing to clean up with prefix {prefix!r}")
    try:
        names = [name for name in s3.list_bucket_names() if name.startswith(prefix)]
    except Exception as exc:
        warnings.warn(CleanupWarning(f"cleanup: cannot list buckets: {exc}"), stacklevel=2)
        return []
    for name in names:
        delete_bucket(s3, name)
    return names
