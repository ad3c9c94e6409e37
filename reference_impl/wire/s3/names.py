"""S3's bucket naming rule, which the mgmt API's bucket create applies as well (one rule)."""

from __future__ import annotations

import re

BUCKET_NAME = re.compile(r"\A[a-z0-9][a-z0-9-]{1,61}[a-z0-9]\Z")


def valid_bucket_name(name: str) -> bool:
    return bool(BUCKET_NAME.match(name))
