"""Test-only pytest plugin: the run's first bucket deletion times out once, as on a target
that was slow for a moment and answers again afterwards.

That is what set the cleanup latch (conformance/plugin/cleanup.py) in the middle of a run.
Loaded with `-p cleanup_timeout_once` (tests/helpers on the path).
"""

from __future__ import annotations

import functools

from botocore.exceptions import ReadTimeoutError

from conformance.clients.s3 import S3Client

_delete = S3Client.delete_bucket_recursive
TIMED_OUT: list[str] = []


@functools.wraps(_delete)
def _times_out_once(self: S3Client, name: str) -> None:
    if not TIMED_OUT:
        TIMED_OUT.append(name)
        raise ReadTimeoutError(endpoint_url=str(self.surface.get("endpoint")))
    _delete(self, name)


S3Client.delete_bucket_recursive = _times_out_once  # type: ignore[method-assign]
