"""The GetObject miss hook: an object missing from a bucket with migration enabled is fetched.

Called by the S3 GetObject / HeadObject handler (and so by the public entrypoint, which uses
it): the local object wins; on NoSuchKey the migration source is asked, the object is stored
and served, and later reads are local. A request a fetch sent (source.HOP_HEADER) never
fetches: a chain of migrations through this service is cut at its first hop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.services.migration.source import HOP_HEADER, fetch_missing
from reference_impl.storage.engine import ObjectRecord
from reference_impl.wire.s3.errors import S3Error


async def require_or_fetch(
    ctx: ServerContext, call: Any, require: Callable[[ServerContext, Any], ObjectRecord]
) -> ObjectRecord:
    try:
        return require(ctx, call)
    except S3Error as error:
        if error.code != "NoSuchKey" or call.header(HOP_HEADER) is not None:
            raise  # the second: a fetch's own request (a source that is this service)
        record = await fetch_missing(ctx, call.account, call.bucket, call.key)
        if record is None:
            raise
        return record
