"""The S3-compatible object storage surface: one catch-all route, errors as S3 XML."""

from __future__ import annotations

import logging

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import request_response
from starlette.types import ASGIApp, Receive, Scope, Send

from reference_impl.context import ServerContext
from reference_impl.s3 import content_type, cors_match, protocol_hooks
from reference_impl.s3.call import resolve
from reference_impl.s3.dispatch import route
from reference_impl.storage.engine import BucketGone
from reference_impl.storage.full import StorageFull, is_full
from reference_impl.wire.s3.error_reply import error_response
from reference_impl.wire.s3.errors import S3Error

log = logging.getLogger(__name__)


def build_app(ctx: ServerContext) -> ASGIApp:
    async def handle(request: Request) -> Response:
        # the request-target's path, decoded once: `request.url.path` ends at a decoded `?`/`#`
        path: str = request.scope["path"]
        try:
            if request.method == "OPTIONS" and not cors_match.treat_as_signed(ctx, request):
                return await cors_match.preflight(ctx, request)
            call = resolve(ctx, request)
            protocol_hooks.before(ctx, call)
            handler = route(call)
            return await protocol_hooks.after(ctx, call, await handler(ctx, call))
        except S3Error as error:
            response = error_response(ctx, error, path)
            return content_type.xml_content_type_deviation(ctx, response)
        except ClientDisconnect:  # gone mid-body (or its body timed out): nothing to answer
            raise  # QuietDisconnects (server.py) ends it with one short line
        except BucketGone as gone:  # deleted while the body streamed: nothing was stored
            missing = S3Error("NoSuchBucket", BucketName=gone.bucket)
            return error_response(ctx, missing, path)
        except Exception as exc:  # a bug of ours: say so as S3 does, and keep serving
            if is_full(exc) or isinstance(exc, StorageFull):  # not a bug: say what it is
                return error_response(ctx, S3Error("InsufficientStorage"), path)
            log.exception("internal error on %s %s", request.method, path)
            return error_response(ctx, S3Error("InternalError"))

    http = request_response(handle)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        """Every S3 request goes straight to `handle`, whatever its path or method.

        No router or middleware stack in between: one catch-all route needed none, the
        handler answers its own errors as S3 XML, and the layers cost every request time.
        """
        if scope["type"] == "http":
            await http(scope, receive, send)
        elif scope["type"] == "lifespan":
            await lifespan_without_hooks(receive, send)

    return app


async def lifespan_without_hooks(receive: Receive, send: Send) -> None:
    """Answer uvicorn's lifespan protocol: nothing to start or stop."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
