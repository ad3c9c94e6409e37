"""The migration source: a SigV4 (botocore) client, validation, and the fetch of one object.

botocore is blocking: every call runs on the `migration` worker pool (reference_impl/offload.py)
and the body is read chunk by chunk into the blob store, so a large object never sits in memory
and the event loop keeps serving other requests meanwhile. The pool is the migration's own: a
slow source once held every thread of the loop's default executor, and the gateway with it.
Each call has a deadline; a source that misses it counts as unreachable (the miss stays one).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator
from typing import Any

from reference_impl import offload
from reference_impl.context import ServerContext
from reference_impl.storage.engine import ObjectRecord
from reference_impl.storage.watches import Watch

CHUNK = 1024 * 1024
# Sent (signed) on every request to a source. A request carrying it never fetches in turn: a
# source that is this service (the `endpoint` extension may name the reference's own S3
# listener, even the bucket itself) would otherwise loop, each hop holding a `migration`
# thread until the deadline, the whole pool for every bucket and account.
HOP_HEADER = "x-reference-migration-fetch"
CALL_DEADLINE_S = 30.0  # one call to the source (the object's head, one chunk of its body)
SIPPY_KIND = "sippy"  # bucket_configs kind of the stored configuration
HTTP_FIELDS = {
    "ContentEncoding": "content-encoding",
    "ContentDisposition": "content-disposition",
    "ContentLanguage": "content-language",
    "CacheControl": "cache-control",
}
LOG = logging.getLogger(__name__)


def client_for(source: dict[str, Any]) -> Any:
    """A path-style S3 client of the source (its `endpoint`, else AWS of its region); one per
    source, kept (botocore clients are thread-safe; building one costs ~0.1 s of CPU)."""
    fields = ("endpoint", "region", "accessKeyId", "secretAccessKey")
    return _client(*(str(source.get(name) or "") for name in fields))


@functools.lru_cache(maxsize=32)
def _client(endpoint: str, region: str, key_id: str, secret: str) -> Any:
    import boto3  # imported on first use: ~0.1 s of the reference's cold start otherwise
    from botocore.config import Config

    client = boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint or None,
        region_name=region or "us-east-1",
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(
            s3={"addressing_style": "path"},
            retries={"max_attempts": 2, "mode": "standard"},
            connect_timeout=5,
            read_timeout=60,
        ),
    )
    client.meta.events.register("before-sign.s3", _mark_hop)
    return client


def _mark_hop(request: Any, **_: Any) -> None:
    request.headers[HOP_HEADER] = "1"


async def validate(stored: dict[str, Any]) -> str | None:
    """None when the source answers, accepts the credentials and has the bucket; else why not."""
    source = stored["source"]
    if source.get("provider") != "aws":
        return "only aws sources can be validated by the reference"
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        await offload.run("migration", _head_bucket, source, timeout=CALL_DEADLINE_S)
    except ClientError as exc:
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status == 404:
            return f"source bucket {source['bucket']!r} not found"
        return f"source refused the credentials or the bucket (HTTP {status})"
    except (BotoCoreError, OSError) as exc:
        return f"source unreachable: {exc}"
    except TimeoutError:
        return f"source did not answer within {CALL_DEADLINE_S:.0f} s"
    return None


def _head_bucket(source: dict[str, Any]) -> None:
    client_for(source).head_bucket(Bucket=source["bucket"])


def _get_object(source: dict[str, Any], key: str) -> Any:
    """The source's GetObject reply (its body still to read); the client is made here too:
    building a botocore client costs milliseconds of CPU the event loop should not pay."""
    return client_for(source).get_object(Bucket=source["bucket"], Key=key)


class Superseded(Exception):
    """The key was written or deleted while its fetch ran: the fetched copy is older."""


async def fetch_missing(
    ctx: ServerContext, account: str, bucket: str, key: str
) -> ObjectRecord | None:
    """Copy `key` from the bucket's migration source into the bucket; None when not there.

    The copy is published only if the key is still absent and nothing wrote or deleted it
    since the fetch began (a watch, storage/watches.py, checked in the publishing
    transaction): a PUT acknowledged meanwhile keeps its bytes, a DELETE keeps the key gone.
    Then the reader gets what the bucket holds now (None: the key is missing after all).
    """
    if ctx.profile.deviations.migration_off:
        return None
    stored = ctx.store.get_bucket_config(account, bucket, SIPPY_KIND)
    if not stored or stored["source"].get("provider") != "aws":
        return None
    with ctx.store.watches.watch(account, bucket, key) as watch:
        record = await _fetch(ctx, stored["source"], account, bucket, key, watch)
    if record is not None and ctx.profile.deviations.migration_not_kept and record.inline:
        ctx.store.delete_object(account, bucket, key)  # served from the record, then forgotten
    return record


async def _fetch(
    ctx: ServerContext, source: dict[str, Any], account: str, bucket: str, key: str, watch: Watch
) -> ObjectRecord | None:
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        reply = await offload.run("migration", _get_object, source, key, timeout=CALL_DEADLINE_S)
    except ClientError as exc:
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status != 404:
            LOG.warning("migration source refused %s/%s: %s", source["bucket"], key, exc)
        return None
    except (BotoCoreError, OSError) as exc:
        LOG.warning("migration source unreachable for %s: %s", key, exc)
        return None
    except TimeoutError:
        LOG.warning("migration source too slow for %s (%.0f s)", key, CALL_DEADLINE_S)
        return None
    body = reply["Body"]

    async def chunks() -> AsyncIterator[bytes]:
        try:
            # compared, not tested bare: `while not chunk := ...` (cosmic-ray's AddNot of the
            # bare form) is a SyntaxError, a reference that never starts and nothing can judge
            while (
                chunk := await offload.run("migration", body.read, CHUNK, timeout=CALL_DEADLINE_S)
            ) != b"":
                yield chunk
        finally:
            body.close()

    try:
        blob = await ctx.store.write_blob(chunks())
    except (TimeoutError, BotoCoreError) as exc:  # the body stalled or broke off
        LOG.warning("migration source failed mid-body for %s: %r", key, exc)
        return None
    http = {name: reply[field] for field, name in HTTP_FIELDS.items() if reply.get(field)}
    meta = {"user": dict(reply.get("Metadata") or {}), "http": http}
    content_type = reply.get("ContentType") or "application/octet-stream"

    def still_missing(current: ObjectRecord | None) -> None:
        if current is not None or watch.changed:
            raise Superseded(key)

    check = None if ctx.profile.deviations.migration_fetch_overwrites else still_missing
    try:
        record: ObjectRecord = ctx.store.put_object(
            account, bucket, key, blob, content_type, meta, check=check
        )
    except Superseded:  # the blob is removed; what the bucket holds now is the answer
        current: ObjectRecord | None = ctx.store.get_object(account, bucket, key)
        return current
    return record


def announce_source(ctx: ServerContext) -> None:
    """Offer the configured loopback source (profile) as the ready file's `migration_source`.

    The suite's migration test needs an S3 source it may create buckets in; for the built-in
    reference target that is a moto server the project test or CI started and named with
    `--reference-profile migration_source_endpoint=http://127.0.0.1:PORT`.
    """
    endpoint = ctx.profile.migration_source_endpoint
    if not endpoint:
        return
    key_id, secret = ctx.profile.migration_source_keys
    ctx.shared.extra_surfaces["migration_source"] = {
        "endpoint": str(endpoint),
        "access_key_id": str(key_id),
        "secret_access_key": str(secret),
        "region": "us-east-1",
        "create_buckets": True,
    }
