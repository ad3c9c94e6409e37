"""The public bucket entrypoint: buckets made public on custom domains, found by `Host`.

One listener serves every custom domain (as one edge serves many hostnames): the `Host`
header names the domain, the registry (`domains.py`, filled through the management API's
`/r2/buckets/{bucket}/domains/custom`) names the bucket. Nothing else does: a bucket is public
only through a linked, enabled domain (the Host header is the client's to choose, so a fallback
on it, such as the loopback Host once served, publishes a private bucket to anyone). Reads are
anonymous GET/HEAD with the S3 API's range and conditional handling; CORS follows the bucket's
rules (`cors.py`); gzip objects follow `encoding.py`.
"""

from __future__ import annotations

import logging

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reference_impl.context import ServerContext
from reference_impl.public import cors, encoding
from reference_impl.services.domains import MalformedHost, normalise_host, registry
from reference_impl.services.object_reads import get_object
from reference_impl.storage.engine import BucketGone
from reference_impl.storage.full import StorageFull
from reference_impl.wire.s3.call_view import CallView
from reference_impl.wire.s3.error_reply import error_response
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.uri import utf8_unquote

LOG = logging.getLogger(__name__)
METHODS = ["GET", "HEAD", "OPTIONS", "PUT", "POST", "DELETE", "PATCH"]


def _bucket_for(ctx: ServerContext, request: Request) -> tuple[str, str]:
    """The bucket the Host names; 400 for a malformed Host or more than one (RFC 9110 7.2)."""
    hosts = request.headers.getlist("host")
    host = hosts[0] if hosts else ""
    try:
        if len(hosts) > 1:
            raise MalformedHost(host)
        enabled_only = not ctx.profile.deviations.public_disabled_domain_served
        found = registry(ctx).bucket_of(host, enabled_only)
    except MalformedHost:
        if ctx.profile.deviations.public_malformed_host_500:  # sensitivity runs: a bug's 500
            raise
        raise S3Error(
            "InvalidArgument", "The Host header is not a host name with an optional port"
        ) from None
    if found is not None:
        return found
    raise S3Error("NoSuchBucket", BucketName=normalise_host(host))


def _without_range(request: Request) -> Request:
    """The same request minus its Range header (a decoded body is never sliced)."""
    scope = dict(request.scope)
    scope["headers"] = [(k, v) for k, v in request.scope["headers"] if k.lower() != b"range"]
    return Request(scope, request.receive)


async def _read(ctx: ServerContext, request: Request, account: str, bucket: str) -> Response:
    raw = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0]
    try:
        key = utf8_unquote(raw)[1:]
    except ValueError:  # not UTF-8: no key has this name (reference_impl/wire/s3/uri.py)
        raise S3Error("InvalidURI") from None
    if request.method not in ("GET", "HEAD"):
        raise S3Error("MethodNotAllowed")
    if ctx.profile.deviations.public_require_auth:
        raise S3Error("AccessDenied")
    if not key:
        raise S3Error("NoSuchKey", Key=key)
    accept = request.headers.get("accept-encoding")
    decode = (
        not encoding.accepts_gzip(accept) and not ctx.profile.deviations.public_gzip_refusal_ignored
    )
    if decode and "range" in request.headers:
        record = ctx.store.get_object(account, bucket, key)
        if record is not None and encoding.is_gzip_coding(
            record.meta.get("http", {}).get("content-encoding")
        ):
            request = _without_range(request)
    response = await get_object(ctx, CallView(request, account, bucket, key))
    if encoding.is_gzip(response):
        if ctx.profile.deviations.public_drop_content_encoding:
            del response.headers["content-encoding"]
        elif decode:
            response = await encoding.decoded(response)
    _range_deviations(ctx, response)
    return response


def _range_deviations(ctx: ServerContext, response: Response) -> None:
    headers: MutableHeaders = response.headers
    profile = ctx.profile
    if response.status_code == 206 and profile.deviations.public_range_status_200:
        response.status_code = 200
    length = headers.get("content-length")
    if profile.deviations.public_content_range_always and "content-range" not in headers and length:
        headers["Content-Range"] = f"bytes 0-{int(length) - 1}/{length}"


def build_app(ctx: ServerContext) -> Starlette:
    async def handle(request: Request) -> Response:
        try:
            if request.method == "OPTIONS" and "origin" not in request.headers:
                status = int(ctx.profile.public_options_without_origin_status)
                return Response("Origin header required", status_code=status)
            account, bucket = _bucket_for(ctx, request)
            if request.method == "OPTIONS":
                return await cors.preflight(ctx, request, account, bucket)
            response = await _read(ctx, request, account, bucket)
            return await cors.decorate(ctx, request, account, bucket, response)
        except S3Error as error:
            return error_response(ctx, error)
        except BucketGone as gone:  # deleted while a migration fetch stored the object
            return error_response(ctx, S3Error("NoSuchBucket", BucketName=gone.bucket))
        except StorageFull:  # a migration fetch found the disk full
            return error_response(ctx, S3Error("InsufficientStorage"))
        except Exception:  # a bug of ours: answer 500 and keep serving
            LOG.exception("public entrypoint failed on %s %s", request.method, request.url.path)
            return error_response(ctx, S3Error("InternalError"))

    return Starlette(routes=[Route("/{path:path}", handle, methods=METHODS)])
