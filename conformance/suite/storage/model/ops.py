"""The requests the model sends, through the suite's raw signed client, and their parsing.

Raw requests (not boto3) so that the model sees every status as the target sent it: a 304, a
204 for a missing key, a Quiet DeleteObjects body. Each function sends one request.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_wire import WireClient, WireReply


def copy_source(bucket: str, key: str) -> str:
    """The copy-source header: leading slash, the key URL-encoded as S3 wants it."""
    return f"/{bucket}/{quote(key, safe='/')}"


def http_date(when: dt.datetime) -> str:
    return email.utils.format_datetime(when.astimezone(dt.UTC), usegmt=True)


def parse_http_date(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    try:
        return email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class Page:
    """One page of ListObjects (V1 or V2) as the target rendered it."""

    keys: list[str]
    prefixes: list[str]
    truncated: bool
    key_count: int | None  # V2 only
    token: str | None  # NextContinuationToken (V2) or NextMarker (V1)


def parse_page(reply: WireReply) -> Page | None:
    root = reply.xml
    if root is None or root.tag != "ListBucketResult":
        return None
    keys = [item.findtext("Key") or "" for item in root.findall("Contents")]
    prefixes = [item.findtext("Prefix") or "" for item in root.findall("CommonPrefixes")]
    count = root.findtext("KeyCount")
    token = root.findtext("NextContinuationToken") or root.findtext("NextMarker")
    truncated = (root.findtext("IsTruncated") or "").strip().lower() == "true"
    return Page(keys, prefixes, truncated, int(count) if count else None, token)


def list_page(
    wire: WireClient,
    bucket: str,
    version: int,
    prefix: str,
    delimiter: str | None,
    max_keys: int,
    cursor: str | None,
    start_after: str = "",
) -> WireReply:
    query: list[tuple[str, str | None]] = [("list-type", "2")] if version == 2 else []
    query += [("prefix", prefix), ("max-keys", str(max_keys))]
    if delimiter:
        query.append(("delimiter", delimiter))
    if version == 2 and start_after:
        query.append(("start-after", start_after))
    if cursor is not None:
        query.append(("continuation-token" if version == 2 else "marker", cursor))
    return wire.request("GET", bucket, query=query)


def uploads_of(reply: WireReply) -> set[tuple[str, str]] | None:
    """(key, upload id) of a ListMultipartUploads reply; None when it is not one."""
    root = reply.xml
    if root is None or root.tag != "ListMultipartUploadsResult":
        return None
    return {
        (item.findtext("Key") or "", item.findtext("UploadId") or "")
        for item in root.findall("Upload")
    }


def deleted_and_errors(reply: WireReply) -> tuple[list[str], list[str]] | None:
    """Keys reported Deleted and keys reported as Error by DeleteObjects."""
    root = reply.xml
    if root is None or root.tag != "DeleteResult":
        return None
    deleted = [item.findtext("Key") or "" for item in root.findall("Deleted")]
    errors = [item.findtext("Key") or "" for item in root.findall("Error")]
    return deleted, errors


def result_etag(reply: WireReply) -> str | None:
    """The ETag element of a CopyObject or CompleteMultipartUpload result."""
    root = reply.xml
    return None if root is None else root.findtext("ETag")


def upload_id_of(reply: WireReply) -> str | None:
    root = reply.xml
    return None if root is None else root.findtext("UploadId")


def part(
    wire: WireClient, bucket: str, key: str, upload: str, number: int, body: bytes
) -> WireReply:
    return mp.upload_part(wire, bucket, key, upload, number, body)


class SlowBody:
    """A request body that trickles out, so that other requests overlap it (races)."""

    def __init__(self, size: int, chunk: int, pause: float) -> None:
        self.size, self.chunk, self.pause, self.sent = size, chunk, pause, 0

    def __len__(self) -> int:
        return self.size  # the declared length, read before the first byte is sent

    def read(self, amount: int = -1, /) -> bytes:
        if self.sent >= self.size:
            return b""
        time.sleep(self.pause)
        step = min(self.chunk, self.size - self.sent)
        self.sent += step
        return b"r" * step


@dataclass
class RacedPut:
    """The outcome of one PUT sent from its own thread and connection."""

    key: str
    reply: WireReply | None = None
    failure: str | None = None  # a connection error instead of an answer


def twin(wire: WireClient) -> WireClient:
    """Another client of the same target with its own connection pool (one per thread)."""
    return WireClient(
        wire.endpoint,
        wire.credentials.access_key,
        wire.credentials.secret_key,
        region=wire.region,
        vendor_prefix=wire.vendor_prefix,
        ext_prefix=wire.ext_prefix,
        verify=wire.verify,
        timeout=wire.timeout,
    )


def start_slow_puts(
    wire: WireClient, bucket: str, keys: list[str], size: int, headers: Mapping[str, str]
) -> tuple[list[RacedPut], list[threading.Thread]]:
    """PUTs whose bodies trickle for a while, each from its own thread."""
    outcomes = [RacedPut(key) for key in keys]

    def send(outcome: RacedPut) -> None:
        client = twin(wire)
        body = SlowBody(size, 8192, 0.02)
        sent = {**headers, "Content-Length": str(size)}
        try:
            outcome.reply = client.request(
                "PUT", bucket, outcome.key, body=body, headers=sent, payload_hash="UNSIGNED-PAYLOAD"
            )
        except Exception as exc:  # a connection the target dropped: no answer at all
            outcome.failure = f"{type(exc).__name__}: {exc}"

    threads = [threading.Thread(target=send, args=(o,), daemon=True) for o in outcomes]
    for thread in threads:
        thread.start()
    return outcomes, threads
