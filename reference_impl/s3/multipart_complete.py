"""CompleteMultipartUpload: validate the part list, join the parts by streaming, publish.

Dated behaviour comes from the profile: sorting out-of-order parts (2024-01-26; before it they
are refused with InvalidPartOrder), part sizes checked here (2022-10-28; before it at
UploadPart), conditional completion that aborts the upload when a condition fails (2023-08-11).
A part listed with a checksum (`ChecksumCRC32`...) must have it, as a listed ETag must match:
InvalidPart otherwise (the body's checksums were ignored, so a part the client's own integrity
check disowned was published: defects13).
"""

from __future__ import annotations

import asyncio
import time
import xml.etree.ElementTree as ET

from starlette.responses import Response

from reference_impl import offload
from reference_impl.context import ServerContext
from reference_impl.numbers import is_decimal
from reference_impl.s3 import multipart_done
from reference_impl.s3.call import Call
from reference_impl.s3.chunked_checksums import encode, new_checksum
from reference_impl.s3.conditions_put import missing_if_match, on_missing, publish_check
from reference_impl.s3.multipart import require_upload, uploads
from reference_impl.services import conditions, deviant
from reference_impl.storage.multipart import COMPLETING, Part, Upload, UploadGone, multipart_etag
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import parse_request_body, xml_response


def _requested(ctx: ServerContext, root: ET.Element) -> list[tuple[int, str]]:
    """(part number, ETag without quotes) pairs in body order; MalformedXML when unreadable."""
    if root.tag != "CompleteMultipartUpload":
        raise S3Error("MalformedXML")
    pairs: list[tuple[int, str]] = []
    for node in root.findall("Part"):
        number = (node.findtext("PartNumber") or "").strip()
        etag = (node.findtext("ETag") or "").strip()
        if not is_decimal(number) or not etag:
            raise S3Error("MalformedXML")
        quoted = etag.startswith('"') and etag.endswith('"') and len(etag) >= 2
        if ctx.profile.deviations.multipart_quotes_required and not quoted:
            raise S3Error("InvalidPart", "ETags must be quoted")
        pairs.append((int(number), etag.strip('"')))
    if not pairs:
        raise S3Error("MalformedXML", "The XML must name at least one part")
    return pairs


# CompletedPart's checksum elements, by the algorithm UploadPart verifies them with
PART_CHECKSUMS = {
    "ChecksumCRC32": "crc32",
    "ChecksumCRC32C": "crc32c",
    "ChecksumSHA1": "sha1",
    "ChecksumSHA256": "sha256",
}


def _claims(root: ET.Element) -> dict[int, dict[str, str]]:
    """Per part number, the checksums the body lists for it (after `_requested` read it)."""
    claims: dict[int, dict[str, str]] = {}
    for node in root.findall("Part"):
        listed = {
            algorithm: (node.findtext(element) or "").strip()
            for element, algorithm in PART_CHECKSUMS.items()
            if node.find(element) is not None
        }
        if listed:
            claims[int((node.findtext("PartNumber") or "").strip())] = listed
    return claims


def _part_checksums(ctx: ServerContext, part: Part, algorithms: list[str]) -> dict[str, str]:
    """Base64 checksums of a stored part; blocking (run on the hash pool)."""
    accumulators = {algorithm: new_checksum(algorithm) for algorithm in algorithms}
    for chunk in ctx.store.blobs.read(part.blob):
        for accumulator in accumulators.values():
            accumulator.update(chunk)
    return {algorithm: encode(acc.digest()) for algorithm, acc in accumulators.items()}


async def _check_claims(
    ctx: ServerContext, upload: Upload, chosen: list[Part], claims: dict[int, dict[str, str]]
) -> None:
    """InvalidPart for a part whose listed checksum is not its own (S3: the part named is not
    the one stored); read back only for parts listed with one."""
    for part in chosen:
        listed = claims.get(part.number)
        if not listed:
            continue
        try:
            actual = await offload.run("hash", _part_checksums, ctx, part, list(listed))
        except FileNotFoundError:  # its file went with the upload's bucket meanwhile
            raise S3Error("NoSuchUpload", UploadId=upload.upload_id) from None
        if any(actual[algorithm] != value for algorithm, value in listed.items()):
            raise S3Error("InvalidPart", PartNumber=str(part.number), ETag=part.etag)


def _in_order(ctx: ServerContext, pairs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    numbers = [number for number, _ in pairs]
    if len(set(numbers)) != len(numbers):
        raise S3Error("InvalidPartOrder", "A part is listed more than once")
    if numbers == sorted(numbers):
        return pairs
    if ctx.profile.multipart_sort_parts:
        return sorted(pairs)
    raise S3Error("InvalidPartOrder")


def _chosen(ctx: ServerContext, upload: Upload, pairs: list[tuple[int, str]]) -> list[Part]:
    """The stored parts the body names, each with a matching ETag; sizes checked."""
    stored = {part.number: part for part in uploads(ctx).parts(upload.upload_id)}
    chosen: list[Part] = []
    for number, etag in pairs:
        part = stored.get(number)
        if part is None or part.etag != etag:
            raise S3Error("InvalidPart", PartNumber=str(number), ETag=etag)
        chosen.append(part)
    minimum = int(ctx.profile.multipart_min_part_bytes)
    for part in chosen[:-1]:
        if part.size < minimum:
            raise S3Error(
                "EntityTooSmall", PartNumber=str(part.number), ProposedSize=str(part.size)
            )
    sizes_checked = deviant.sizes_checked_at_completion(ctx)
    if sizes_checked and len(chosen) > 2:
        first = chosen[0].size
        if any(part.size != first for part in chosen[1:-1]):
            raise S3Error("InvalidPart", "All non-trailing parts must have the same length")
    last_larger = len(chosen) > 1 and chosen[-1].size > chosen[0].size
    if sizes_checked and last_larger:
        raise S3Error("InvalidPart", "The last part may not be larger than the others")
    return chosen


def _check_conditions(ctx: ServerContext, call: Call, upload: Upload) -> None:
    """A failed condition is 412 and the upload is aborted (decisions.md).

    This is the early check; the conditions are checked again when the object publishes
    (`_publish`), against the object under the key at that moment.
    """
    if not ctx.profile.multipart_conditional_complete:
        return
    wanted = conditions.from_headers(call.joined)
    if not wanted.present:
        return
    current = ctx.store.get_object(upload.account, upload.bucket, upload.key)
    try:
        if ctx.profile.deviations.complete_met_conditions_412:
            raise S3Error("PreconditionFailed", Condition="any")
        lists = bool(ctx.profile.conditional_etag_lists)
        wanted = on_missing(ctx, wanted, current)
        conditions.check_write(wanted, current, lists, missing=missing_if_match(ctx))
    except S3Error:
        _abort_failed(ctx, upload)
        raise


def _abort_failed(ctx: ServerContext, upload: Upload) -> None:
    if not ctx.profile.deviations.failed_completion_keeps_upload:
        uploads(ctx).delete(upload.upload_id)


async def _retried(ctx: ServerContext, call: Call, missing: S3Error) -> Response:
    """A completion of an upload already completed: the same answer for the same parts."""
    assert call.bucket is not None and call.key is not None
    upload_id = call.query.get("uploadId", "")
    generation = ctx.store.bucket_generation(call.account, call.bucket)
    done = multipart_done.recall(call.account, call.bucket, generation, call.key, upload_id)
    if done is None or ctx.profile.deviations.complete_retry_forgotten:
        raise missing
    body = await call.small_body()
    root = await parse_request_body(body, not ctx.profile.deviations.refuse_xml_declaration)
    if tuple(_in_order(ctx, _requested(ctx, root))) != done.pairs:
        raise missing
    return _completed(call.bucket, call.key, done.etag)


def _completed(bucket: str, key: str, etag: str) -> Response:
    return xml_response(
        "complete_multipart_upload.xml.j2",
        location=f"/{bucket}/{key}",
        bucket=bucket,
        key=key,
        etag=etag,
    )


async def complete_multipart_upload(ctx: ServerContext, call: Call) -> Response:
    try:
        upload = require_upload(ctx, call)
    except S3Error as error:
        if error.code != "NoSuchUpload":
            raise
        return await _retried(ctx, call, error)
    early = (
        ctx.profile.deviations.write_conditions_at_start
    )  # the defect: checked before the body only
    if early:
        _check_conditions(ctx, call, upload)
    body = await call.small_body()
    root = await parse_request_body(body, not ctx.profile.deviations.refuse_xml_declaration)
    requested = _requested(ctx, root)
    pairs = _in_order(ctx, requested)
    # before the conditions: a failed one aborts the upload, which must never happen under
    # another completion that started while this body arrived (it lost its parts)
    if upload.upload_id in COMPLETING:
        raise S3Error("TooMuchConcurrency")
    if not early:
        _check_conditions(ctx, call, upload)
    COMPLETING.add(upload.upload_id)
    try:
        delay = float(ctx.profile.multipart_complete_delay_seconds or 0)
        if delay > 0:
            await asyncio.sleep(delay)
        # another completion (or an abort, or its bucket's delete) may have ended the upload
        # while this body arrived: that is NoSuchUpload, not an InvalidPart about parts gone
        if uploads(ctx).get(upload.account, upload.bucket, upload.key, upload.upload_id) is None:
            raise S3Error("NoSuchUpload", UploadId=upload.upload_id)
        chosen = _chosen(ctx, upload, pairs)
        await _check_claims(ctx, upload, chosen, _claims(root))
        try:
            blob = await uploads(ctx).join(deviant.joined_parts(ctx, chosen, requested))
        except UploadGone:  # aborted with its bucket while the parts were joined
            raise S3Error("NoSuchUpload", UploadId=upload.upload_id) from None
        etag = deviant.multipart_etag(ctx, chosen, multipart_etag(chosen))
        if ctx.profile.deviations.multipart_etag_plain:
            etag = blob.md5_hex
        meta = {**upload.meta, "parts": [part.size for part in chosen]}  # ?partNumber=
        check = publish_check(ctx, call) if ctx.profile.multipart_conditional_complete else None
        try:
            ctx.store.put_object(
                upload.account, upload.bucket, upload.key, blob, upload.content_type,
                meta, etag=etag, check=check,
            )  # fmt: skip
        except S3Error:  # a condition failed at publish time: 412, the upload aborted
            _abort_failed(ctx, upload)
            raise
        uploads(ctx).delete(upload.upload_id)
        generation = ctx.store.bucket_generation(upload.account, upload.bucket)
        done = multipart_done.Completed(
            upload.account, upload.bucket, generation, upload.key, tuple(pairs), etag, time.time()
        )
        multipart_done.remember(upload.upload_id, done)
    finally:
        COMPLETING.discard(upload.upload_id)
    return _completed(upload.bucket, upload.key, etag)
