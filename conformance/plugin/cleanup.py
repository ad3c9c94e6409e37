"""Delete exactly the buckets this run created: those whose name starts with its prefix.

Cleanup never raises: a bucket it cannot delete becomes a warning, so that a broken target
does not hide the run's real results behind a crash. Nor does it wait on a target that has
stopped answering: after one cleanup request of this process times out against an endpoint,
the other cleanup steps skip it (each would wait the client's 60 s read timeout again, minutes
in all at the end of a run that found the target hung). The end-of-run sweep of a run on a
named target tries once more (lifecycle.clean_run_buckets): in a serial run it is the process
that latched, and a timeout mid-run would leave every later bucket. Whatever is still left
keeps the run registered, so `conformance recover` removes it (docs/safety.md).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest


class CleanupWarning(pytest.PytestWarning):
    """A resource of the run could not be removed."""


# endpoint -> the timeout after which this process's cleanup stopped calling it
_SILENT: dict[str, str] = {}


def forget_silent_targets() -> None:
    """A new session (pytester runs several in one process) gives every target a fresh try."""
    _SILENT.clear()


def forget_silent(s3: Any) -> None:
    """Give this client's target a fresh try (the run's last sweep of its buckets)."""
    _SILENT.pop(_endpoint(s3), None)


def _endpoint(s3: Any) -> str:
    surface = getattr(s3, "surface", None)
    return str(surface.get("endpoint", "")) if isinstance(surface, dict) else ""


def silent_reason(s3: Any) -> str | None:
    """Why cleanup no longer calls this client's target (a timeout), or None."""
    return _SILENT.get(_endpoint(s3))


def _note_timeout(s3: Any, exc: Exception) -> None:
    from botocore.exceptions import ConnectTimeoutError, ReadTimeoutError

    if isinstance(exc, ConnectTimeoutError | ReadTimeoutError) and _endpoint(s3):
        _SILENT.setdefault(_endpoint(s3), str(exc))


def _skipped(what: str, reason: str) -> None:
    warnings.warn(
        CleanupWarning(f"cleanup: {what}: the target did not answer an earlier cleanup "
                       f"request ({reason}); `conformance recover` removes what is left"),
        stacklevel=3,
    )  # fmt: skip


def delete_bucket(s3: Any, name: str) -> None:
    if reason := silent_reason(s3):
        _skipped(f"bucket {name!r} not deleted", reason)
        return
    try:
        s3.delete_bucket_recursive(name)
    except Exception as exc:
        _note_timeout(s3, exc)
        warnings.warn(CleanupWarning(f"cleanup: bucket {name!r} not deleted: {exc}"), stacklevel=2)


def delete_prefixed(s3: Any, prefix: str) -> list[str]:
    """Delete every bucket starting with `prefix`; returns the names it tried."""
    if not prefix.startswith("ec-"):
        raise ValueError(f"refusing to clean up with prefix {prefix!r}")
    if reason := silent_reason(s3):
        _skipped(f"buckets {prefix}* not listed", reason)
        return []
    try:
        names: list[str] = s3.list_bucket_names(prefix)
    except Exception as exc:
        _note_timeout(s3, exc)
        warnings.warn(CleanupWarning(f"cleanup: cannot list buckets: {exc}"), stacklevel=2)
        return []
    for name in names:
        delete_bucket(s3, name)
    return names


def check_unlinked(public: Any) -> None:
    """Warn when the custom domain a test linked was not unlinked: the bucket is deleted next,
    and a service that keeps a deleted bucket's domains then lists it under no bucket."""
    if public.unlinked not in (200, 404):
        warnings.warn(
            CleanupWarning(f"cleanup: custom domain {public.domain!r} of bucket "
                           f"{public.bucket!r} not unlinked: the unlink answered "
                           f"{public.unlinked}"),
            stacklevel=2,
        )  # fmt: skip
