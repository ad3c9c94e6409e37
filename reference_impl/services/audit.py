"""Config audit logs: every configuration change of a bucket, with time, actor and change.

Handlers of every surface call `record` (or `record_s3`) in one line after a change succeeded;
entries live in the store's SQLite database (storage/audit_log.py), so they survive restarts and
are listed by the management API (`GET /accounts/{account_id}/r2/audit`). The listing shape is
the reference's own: the spec names audit logs but shows neither their content nor an API.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.storage import clock

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")


def record(
    ctx: ServerContext,
    account: str,
    bucket: str | None,
    action: str,
    change: Any = None,
    actor: str | None = None,
) -> None:
    """Append one entry: `action` names the operation (PutBucketCors), `change` what changed."""
    if ctx.profile.deviations.audit_off or bucket is None:
        return
    ctx.audit.append(
        account, bucket, clock.now(ctx, account, bucket), actor or f"account:{account}",
        action, json.dumps(change, allow_nan=False),
    )  # fmt: skip


def record_s3(ctx: ServerContext, call: Any, action: str, change: Any = None) -> None:
    """`record` for an S3 call: the actor is the access key id that signed the request."""
    auth = call.request.headers.get("authorization", "")
    found = _CREDENTIAL.search(auth)
    key = found.group(1) if found else call.request.query_params.get("X-Amz-Credential", "")
    actor = f"access_key:{key.split('/', 1)[0]}" if key else None
    record(ctx, call.account, call.bucket, action, change, actor)


def entries(
    ctx: ServerContext, account: str, bucket: str | None, after_id: int, limit: int
) -> list[dict[str, Any]]:
    """Entries of the account (of one bucket when given), oldest first, ids after `after_id`."""
    return page(ctx, account, bucket, after_id, limit)[0]


def page(
    ctx: ServerContext,
    account: str,
    bucket: str | None,
    after_id: int,
    limit: int,
    max_bytes: int | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """`entries`, and whether more may follow (`limit` reached or the page cut by size).

    With `max_bytes`, the page ends after the entry whose stored changes pass that size (at
    least one entry): a change can be a whole CORS configuration of megabytes, and a page of
    1,000 of them parsed and serialised on the event loop held every surface for seconds.
    """
    found: list[dict[str, Any]] = []
    size = 0
    for row_id, name, when, actor, action, change in ctx.audit.rows(
        account, bucket, after_id, limit
    ):
        found.append(
            {
                "id": row_id,
                "bucket": name,
                "time": dt.datetime.fromtimestamp(when, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "actor": actor,
                "action": action,
                "change": json.loads(change),
            }
        )
        size += len(change)
        if max_bytes is not None and size >= max_bytes:
            return found, True
    return found, len(found) == limit
