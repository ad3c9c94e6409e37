"""PutObject / UploadPart checksums: `x-amz-checksum-{crc32,crc32c,sha1,sha256}` verified, kept.

SHA-256 comes from the blob store when it hashed the body while streaming (a signed payload);
otherwise, and for SHA-1 / CRC32 / CRC32C, the stored blob is read back, only when a request
declares one (rare: hashing every upload with every algorithm cost more). The read-back runs on
the `hash` worker pool, once for every claimed algorithm: a 2 GiB body hashed on the event loop
stalled every surface (docs/architecture.md, "Bounded work per request"). Values are kept
base64 (as sent) in the object's metadata under `checksums`, where GetObject / HeadObject find
them for `x-amz-checksum-mode: ENABLED` (as for checksums proved by an aws-chunked trailer).
UploadPart goes through the same `settle`: it once checked only a trailer, so a part under a
wrong checksum header was stored with 200 (S3 answers 400 BadDigest for a part as for an object).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping

from starlette.datastructures import Headers

from reference_impl import offload
from reference_impl.context import ServerContext
from reference_impl.s3.chunked_checksums import new_checksum, well_formed
from reference_impl.storage.blobs import BlobInfo
from reference_impl.wire.s3.errors import S3Error

HEADER_PREFIX = "x-amz-checksum-"
ALGORITHMS = ("crc32", "crc32c", "sha1", "sha256")
SINGLE = "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed."


def declared(ctx: ServerContext, headers: Headers) -> dict[str, str]:
    """The checksums a request declares, for algorithms the profile offers (others ignored).

    Two lines of one header are one comma-joined value (RFC 9110 section 5.3), as SigV4 signs
    them: no checksum, so InvalidRequest. Reading the first line alone stored a body whose
    second `x-amz-checksum-crc32` line was wrong with 200 (hostile round 12)."""
    offered = set(ctx.profile.put_object_checksums or [])
    found: dict[str, str] = {}
    for name in ALGORITHMS:
        values = headers.getlist(HEADER_PREFIX + name)
        if values and name in offered:
            found[name] = ",".join(value.strip() for value in values)
    return found


def computed(ctx: ServerContext, blob: BlobInfo, algorithms: Iterable[str]) -> dict[str, str]:
    """Base64 checksums of the stored blob, by algorithm; blocking (run it on a worker)."""
    found: dict[str, bytes] = {}
    wanted = []
    for algorithm in algorithms:
        if algorithm == "sha256" and blob.sha256_hex is not None:
            found[algorithm] = bytes.fromhex(blob.sha256_hex)
        elif algorithm == "sha1" and blob.sha1_hex is not None:
            found[algorithm] = bytes.fromhex(blob.sha1_hex)
        else:  # not hashed while streaming (only what a request needs is): read it back
            wanted.append(algorithm)
    if wanted:
        # the same CRCs the aws-chunked decoder uses; one read of the blob for all of them
        accumulators = {algorithm: new_checksum(algorithm) for algorithm in wanted}
        for chunk in ctx.store.read_blob(blob):
            for accumulator in accumulators.values():
                accumulator.update(chunk)
        found.update({a: acc.digest() for a, acc in accumulators.items()})
    return {a: base64.b64encode(digest).decode() for a, digest in found.items()}


def check_claims(claims: Mapping[str, str]) -> None:
    """One claim, of its algorithm's size, or InvalidRequest: two headers are not one checksum,
    and a value of another size (a CRC32's 4 bytes as SHA-256) is no checksum of that algorithm
    at all, not a mismatch (S3's answers; the aws-chunked decoder's own check, `chunked.py`)."""
    if len(claims) > 1:
        raise S3Error("InvalidRequest", SINGLE)
    for algorithm, claim in claims.items():
        if not well_formed(algorithm, claim):
            raise S3Error(
                "InvalidRequest", f"Value for {HEADER_PREFIX}{algorithm} header is invalid."
            )


async def verify(ctx: ServerContext, blob: BlobInfo, claims: Mapping[str, str]) -> dict[str, str]:
    """Check every claimed checksum against the blob; BadDigest (blob removed) on a mismatch,
    InvalidRequest (blob removed) for claims that are not one checksum (`check_claims`)."""
    try:
        check_claims(claims)
    except S3Error:
        ctx.store.blobs.remove(blob.name)
        raise
    actual = await offload.run("hash", computed, ctx, blob, list(claims))
    kept: dict[str, str] = {}
    for algorithm, claim in claims.items():
        if actual[algorithm] != claim and not ctx.profile.deviations.checksum_unverified:
            ctx.store.blobs.remove(blob.name)
            raise S3Error(
                "BadDigest",
                f"The {algorithm.upper()} you specified did not match the calculated checksum.",
            )
        kept[algorithm] = claim
    return kept


async def settle(
    ctx: ServerContext, blob: BlobInfo, proved: Mapping[str, str], headers: Headers
) -> dict[str, str]:
    """The checksums a written body keeps: those an aws-chunked trailer proved (`proved`), else
    the `x-amz-checksum-*` headers, verified (BadDigest, blob removed, on a mismatch)."""
    if proved:
        return dict(proved)
    claims = declared(ctx, headers)
    return await verify(ctx, blob, claims) if claims else {}
