"""HTTP dates a second either side of a stored object's Last-Modified: the boundary that tells
`>` from `>=` in the date conditions."""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime, parsedate_to_datetime


def shift(http_date: str, seconds: int) -> str:
    """`http_date` moved by `seconds`, in IMF-fixdate form."""
    moment = parsedate_to_datetime(http_date) + dt.timedelta(seconds=seconds)
    return format_datetime(moment.astimezone(dt.UTC), usegmt=True)
