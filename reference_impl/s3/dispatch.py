"""Which operation a request names: method, bucket/key presence and subresource parameters."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3 import (
    bucket_listing,
    buckets,
    copy,
    cors,
    deletes,
    encryption,
    lifecycle,
    listing,
    multipart,
    multipart_complete,
    multipart_list,
    objects,
    placeholders,
)
from reference_impl.s3.call import Call
from reference_impl.services import object_reads
from reference_impl.wire.s3.errors import S3Error

Handler = Callable[[ServerContext, Call], Awaitable[Response]]

# query parameters that name an operation (a subresource) rather than qualify one
SUBRESOURCES = frozenset(
    {
        "accelerate",
        "acl",
        "analytics",
        "attributes",
        "cors",
        "delete",
        "encryption",
        "intelligent-tiering",
        "inventory",
        "legal-hold",
        "lifecycle",
        "location",
        "logging",
        "metrics",
        "notification",
        "object-lock",
        "ownershipControls",
        "partNumber",
        "policy",
        "policyStatus",
        "publicAccessBlock",
        "replication",
        "requestPayment",
        "restore",
        "retention",
        "select",
        "tagging",
        "torrent",
        "uploadId",
        "uploads",
        "versionId",
        "versioning",
        "versions",
        "website",
    }
)

_BUCKET_OPS: dict[tuple[str, str | None], Handler] = {
    ("PUT", None): buckets.create_bucket,
    ("DELETE", None): buckets.delete_bucket,
    ("HEAD", None): buckets.head_bucket,
    ("GET", "location"): buckets.get_bucket_location,
    ("POST", "delete"): deletes.delete_objects,
    ("GET", "uploads"): multipart_list.list_multipart_uploads,
}
_OBJECT_OPS: dict[tuple[str, str | None], Handler] = {
    ("PUT", None): objects.put_object,
    ("POST", None): objects.put_object,
    ("GET", None): object_reads.get_object,
    ("HEAD", None): object_reads.get_object,
    ("GET", "partNumber"): object_reads.get_object,  # one part of the object
    ("HEAD", "partNumber"): object_reads.get_object,
    ("DELETE", None): objects.delete_object,
    ("POST", "uploads"): multipart.create_multipart_upload,
    ("PUT", "partNumber"): multipart.upload_part,
    ("POST", "uploadId"): multipart_complete.complete_multipart_upload,
    ("DELETE", "uploadId"): multipart.abort_multipart_upload,
    ("GET", "uploadId"): multipart_list.list_parts,
}

_BUCKET_OPS.update(cors.OPERATIONS)
_BUCKET_OPS.update(encryption.OPERATIONS)
_BUCKET_OPS.update(placeholders.OPERATIONS)
_BUCKET_OPS.update(lifecycle.OPERATIONS)  # after placeholders: GET lifecycle returns rules


def route(call: Call) -> Handler:
    """The handler of the call's operation; NotImplemented for anything else."""
    method = call.method
    named = sorted(SUBRESOURCES & set(call.query))
    subresource = named[0] if named else None
    if call.bucket is None:
        if method == "GET" and subresource is None:
            return bucket_listing.list_buckets
        raise S3Error("NotImplemented")
    if call.key is None:
        if method == "GET" and subresource is None:
            if call.query.get("list-type") == "2":
                return listing.list_objects_v2
            return listing.list_objects_v1
        handler = _BUCKET_OPS.get((method, subresource))
        if handler is None:
            return placeholders.unsupported_bucket_operation
    else:
        if method == "PUT" and "x-amz-copy-source" in call.request.headers:
            if subresource is None:
                return copy.copy_object
            if subresource == "partNumber":
                return copy.upload_part_copy
        handler = _OBJECT_OPS.get((method, subresource))
    if handler is None:
        raise S3Error("NotImplemented")
    return handler
