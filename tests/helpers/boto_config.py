"""The botocore Config of the project tests' own boto3 clients of the reference, in one place:
tests/reference's `boto_client` and tests/reliability's `RefProcess.boto` built it twice."""

from __future__ import annotations

from typing import Any

from botocore.config import Config


def reference_boto_config(read_timeout: int, **more: Any) -> Config:
    """Path-style addressing, `max_attempts` 1 (botocore counts retries there), checksums only
    where an operation requires them, 5 s to connect, `read_timeout` seconds to read, and any
    `more` Config settings."""
    return Config(
        s3={"addressing_style": "path"},
        retries={"max_attempts": 1, "mode": "standard"},
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        connect_timeout=5,
        read_timeout=read_timeout,
        **more,
    )
