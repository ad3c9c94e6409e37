"""The check two presigned-expiry tests share: a URL signed by hand at a given moment."""

from __future__ import annotations

import datetime as dt
from typing import Any

from conformance.clients import s3_sign
from conformance.clients.s3_wire import PreparedWire


def check_lifetime(
    s3: Any, bucket: str, key: str, signed_at: dt.datetime, expires: int, valid: bool
) -> None:
    """Store `secret` at `key`, then GET it through a URL signed at `signed_at` for `expires`
    seconds: served while that lifetime lasts, else 400 ExpiredRequest."""
    s3.wire.put_object(bucket, key, b"secret").assert_ok()
    url = s3_sign.presign(
        s3.wire, "GET", s3.wire.url(bucket, key), timestamp=signed_at, expires=expires
    )
    reply = s3.wire.send(PreparedWire("GET", url))
    if valid:
        assert reply.assert_ok().body == b"secret"
    else:
        reply.assert_error(400, "ExpiredRequest")
