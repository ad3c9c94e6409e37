"""HTTP dates a second either side of a stored object's Last-Modified: the boundary that tells
`>` from `>=` in the date conditions."""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any


def shift(http_date: str, seconds: int) -> str:
    """`http_date` moved by `seconds`, in IMF-fixdate form."""
    moment = parsedate_to_datetime(http_date) + dt.timedelta(seconds=seconds)
    return format_datetime(moment.astimezone(dt.UTC), usegmt=True)


def store_dated(s3: Any, bucket: str, key: str, body: bytes) -> str:
    """PUT `body` at `key` and return the object's Last-Modified as HeadObject states it."""
    s3.wire.put_object(bucket, key, body).assert_ok()
    modified: str | None = s3.wire.request("HEAD", bucket, key).assert_ok().header("last-modified")
    assert modified, "HeadObject has no Last-Modified"
    return modified
