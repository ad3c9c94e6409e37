"""CopyObject and UploadPartCopy: find the source, check conditions, stream the bytes across.

Bytes are copied blob to blob by streaming (never whole in memory). Objects are not versioned;
the version ids reported (from 2022-09-06) name the immutable blob each write produced.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from urllib.parse import unquote

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3.call import Call
from reference_impl.s3.conditions_put import on_missing, publish_check
from reference_impl.s3.multipart import part_number, record_part, require_upload
from reference_impl.s3.objects import _metadata, check_key
from reference_impl.services import conditions
from reference_impl.services.object_reads import require_bucket
from reference_impl.storage.blobs import BlobInfo
from reference_impl.storage.engine import ObjectRecord, PublishCheck
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.uri import utf8_unquote
from reference_impl.wire.s3.xmlio import iso8601, xml_response

SOURCE_HEADER = "x-amz-copy-source"
DESTINATION_PREFIX = "cf-copy-destination-"
SOURCE_RANGE = re.compile(r"\Abytes=([0-9]{1,20})-([0-9]{1,20})\Z")


def source_header(call: Call) -> str:
    """x-amz-copy-source as SigV4 signed it: two lines are one comma-joined value (RFC 9110
    section 5.3). The first line alone was read, so a request signed for `/b/k1,/b/k2` copied
    `/b/k1` (hostile round 12); the joined value names key `k1,/b/k2`."""
    return ",".join(call.request.headers.getlist(SOURCE_HEADER))


def parse_source(ctx: ServerContext, text: str) -> tuple[str, str]:
    """`/bucket/key` (URL-encoded, optional `?versionId=`) as (bucket, key)."""
    try:
        path = utf8_unquote(text.split("?", 1)[0])
    except ValueError:  # not UTF-8 once decoded: it names no key (reference_impl/wire/s3/uri.py)
        raise S3Error(
            "InvalidArgument", "Copy Source is not valid UTF-8", ArgumentName=SOURCE_HEADER
        ) from None
    if ctx.profile.deviations.copy_source_slash_refused and path.startswith("/"):
        raise S3Error("InvalidArgument", "Invalid copy source", ArgumentName=SOURCE_HEADER)
    bucket, sep, key = path.lstrip("/").partition("/")
    if not bucket or not sep or not key:
        raise S3Error(
            "InvalidArgument", "Copy Source must mention the source bucket and key",
            ArgumentName=SOURCE_HEADER,
        )  # fmt: skip
    return bucket, key


def source_version(text: str) -> str | None:
    """The `versionId` a copy source names (`/bucket/key?versionId=V`), None when none."""
    for item in text.partition("?")[2].split("&"):
        name, _, value = item.partition("=")
        if name == "versionId":
            return unquote(value)
    return None


def require_source(ctx: ServerContext, call: Call) -> ObjectRecord:
    """The source object: NoSuchBucket / NoSuchKey when missing; 412 on unmet source conditions.

    A named version must be the object's current one (its blob, the version id a copy reports):
    no older version is kept, and copying the current bytes instead would answer 200 with other
    data than the client pinned (NoSuchVersion, as S3 answers a version it does not have)."""
    bucket, key = parse_source(ctx, source_header(call))
    if ctx.store.get_bucket(call.account, bucket) is None:
        if ctx.profile.deviations.copy_missing_source_bucket_403:
            raise S3Error("AccessDenied")
        raise S3Error("NoSuchBucket", BucketName=bucket)
    record: ObjectRecord | None = ctx.store.get_object(call.account, bucket, key)
    if record is None:
        if ctx.profile.deviations.copy_missing_source_key_403:
            raise S3Error("AccessDenied")
        raise S3Error("NoSuchKey", Key=key)
    version = source_version(source_header(call))
    if version is not None and version != record.blob:
        raise S3Error("NoSuchVersion", Key=key)
    if "-" in record.etag and not ctx.profile.copy_multipart_sources:
        raise S3Error("NotImplemented", "Copying multipart objects is not supported")
    wanted = _source_conditions(conditions.from_headers(call.joined, SOURCE_HEADER + "-"))
    conditions.check_write(wanted, record, bool(ctx.profile.conditional_etag_lists), "source ")
    return record


def _source_conditions(wanted: conditions.Conditions) -> conditions.Conditions:
    """The copy-source conditions that decide, in RFC 9110 13.2.2's order, as S3's CopyObject
    page states for them: an If-Match decides instead of If-Unmodified-Since, and an
    If-None-Match instead of If-Modified-Since (a matching if-match with a failing
    if-unmodified-since copies). Each unmet one that decides is a 412."""
    if wanted.if_match is not None:
        wanted = replace(wanted, if_unmodified_since=None)
    if wanted.if_none_match is not None:
        wanted = replace(wanted, if_modified_since=None)
    return wanted


SELF_COPY = (
    "This copy request is illegal because it is trying to copy an object to itself without "
    "changing the object's metadata, storage class, website redirect location or encryption "
    "attributes."
)
# what a copy onto the same key may change instead of its metadata (S3 accepts those)
SELF_COPY_CHANGES = (
    "x-amz-storage-class",
    "x-amz-website-redirect-location",
    "x-amz-server-side-encryption",
    "x-amz-server-side-encryption-customer-algorithm",
)


def _onto_itself(ctx: ServerContext, call: Call) -> bool:
    """Is the copy's source its own destination, with nothing else asked to change?"""
    bucket, key = parse_source(ctx, source_header(call))
    if (bucket, key) != (call.bucket, call.key):
        return False
    return not any(call.header(name) is not None for name in SELF_COPY_CHANGES)


def _still_source(source: ObjectRecord, then: PublishCheck | None) -> PublishCheck:
    """A copy onto its own key publishes only over the object it copied: a delete or a write
    that landed while the bytes were copied comes after the copy's read, and publishing then
    would bring the deleted object back or lose the write (NoSuchKey, TooMuchConcurrency)."""

    def check(current: ObjectRecord | None) -> None:
        if current is None:
            raise S3Error("NoSuchKey", Key=source.key)
        if current.blob != source.blob:
            raise S3Error("TooMuchConcurrency")
        if then is not None:
            then(current)

    return check


async def _copy_blob(
    ctx: ServerContext,
    record: ObjectRecord,
    start: int = 0,
    length: int | None = None,
    *,
    inline: bool = True,
) -> BlobInfo:
    chunks: Iterator[bytes] = ctx.store.read_object(record, start, length)

    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    info: BlobInfo = await ctx.store.write_blob(stream(), inline=inline)
    return info


async def copy_object(ctx: ServerContext, call: Call) -> Response:
    assert call.bucket is not None and call.key is not None
    check_key(call.key)
    if ctx.profile.deviations.copy_missing_destination_403 and not ctx.store.get_bucket(
        call.account, call.bucket
    ):
        raise S3Error("AccessDenied")
    require_bucket(ctx, call)
    source = require_source(ctx, call)
    if ctx.profile.copy_destination_conditions:
        wanted = conditions.from_headers(call.joined, DESTINATION_PREFIX)
        if wanted.present and ctx.profile.deviations.copy_met_conditions_412:
            raise S3Error("PreconditionFailed", Condition="destination")
        if wanted.present:
            current = ctx.store.get_object(call.account, call.bucket, call.key)
            lists = bool(ctx.profile.conditional_etag_lists)
            # a missing destination fails If-Match with 412 (R2 conditional operations); the
            # break copy-if-match-missing-404 answers S3's PutObject 404 NoSuchKey instead
            deviant = ctx.profile.deviations.copy_if_match_missing_404
            missing = "NoSuchKey" if deviant else "PreconditionFailed"
            wanted = on_missing(ctx, wanted, current)
            conditions.check_write(wanted, current, lists, "destination ", missing)
    directive = (call.header("x-amz-metadata-directive") or "COPY").upper()
    if directive not in {"COPY", "REPLACE"}:
        raise S3Error("InvalidArgument", "Unknown metadata directive")
    refuse = directive == "COPY" or ctx.profile.deviations.self_copy_always_refused
    if refuse and _onto_itself(ctx, call) and not ctx.profile.deviations.self_copy_allowed:
        raise S3Error("InvalidRequest", SELF_COPY)
    if directive == "REPLACE":
        meta = _metadata(ctx, call)
        content_type = call.header("content-type") or source.content_type
    else:
        meta, content_type = source.meta, source.content_type
        if ctx.profile.deviations.copy_drops_metadata:  # the source's custom metadata left behind
            meta = {**meta, "user": {}}
    blob = await _copy_blob(ctx, source)
    etag = source.etag if "-" in source.etag else None
    if (
        etag is None and ctx.profile.deviations.copy_drops_metadata
    ):  # and a fresh ETag, not the source's
        etag = secrets.token_hex(16)
    if etag is not None and "parts" in source.meta:  # GetObject ?partNumber= on the copy
        meta = {**meta, "parts": source.meta["parts"]}
    check = None
    if ctx.profile.copy_destination_conditions:  # checked again as the copy publishes
        check = publish_check(ctx, call, DESTINATION_PREFIX, "destination ")
    if parse_source(ctx, source_header(call)) == (call.bucket, call.key):
        check = _still_source(source, check)
    record: ObjectRecord = ctx.store.put_object(
        call.account, call.bucket, call.key, blob, content_type, meta, etag=etag, check=check
    )
    headers = {}
    if ctx.profile.copy_version_id_headers:
        headers["x-amz-version-id"] = record.blob
        headers["x-amz-copy-source-version-id"] = source.blob
    return xml_response(
        "copy_object_result.xml.j2",
        headers=headers,
        root="CopyObjectResult",
        modified=iso8601(record.modified),
        etag=record.etag,
    )


async def upload_part_copy(ctx: ServerContext, call: Call) -> Response:
    number = part_number(ctx, call)
    upload = require_upload(ctx, call)  # NoSuchUpload holds even while copies are disabled
    if not ctx.profile.upload_part_copy:
        raise S3Error("NotImplemented", "UploadPartCopy is not supported")
    source = require_source(ctx, call)
    start, length = 0, source.size
    wanted_range = call.joined("x-amz-copy-source-range")  # as signed: lines joined
    if wanted_range is not None:
        match = SOURCE_RANGE.match(wanted_range.strip())
        if match is None:
            raise S3Error("InvalidArgument", "The x-amz-copy-source-range value is invalid")
        first, last = int(match.group(1)), int(match.group(2))
        if first > last or last >= source.size:
            raise S3Error("InvalidRange")
        start, length = first, last - first + 1
    blob = await _copy_blob(ctx, source, start, length, inline=False)  # a part: a file
    part = record_part(ctx, upload, number, blob)
    return xml_response(
        "copy_object_result.xml.j2",
        root="CopyPartResult",
        modified=iso8601(part.modified),
        etag=part.etag,
    )
