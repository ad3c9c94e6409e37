"""The S3-compatible object storage surface: one catch-all route, errors as S3 XML."""

from __future__ import annotations

import logging

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reference_impl.context import ServerContext
from reference_impl.s3.call import resolve
from reference_impl.s3.dispatch import route
from reference_impl.s3.errors import S3Error
from reference_impl.s3.xmlio import S3_XMLNS, XML_CONTENT_TYPE, render

log = logging.getLogger(__name__)
METHODS = ["GET", "PUT", "POST", "DELETE", "HEAD", "OPTIONS", "PATCH"]


def error_response(ctx: ServerContext, error: S3Error, resource: str = "") -> Response:
    details = dict(error.details)
    if resource:
        details.setdefault("Resource", resource)
    body = render(
        "error.xml.j2",
        code=error.code,
        message=error.message,
        details=details,
        xmlns=S3_XMLNS if ctx.profile.deviate_error_xmlns else "",
    )
    return Response(
        body, status_code=error.status, headers=error.headers, media_type=XML_CONTENT_TYPE
    )


def build_app(ctx: ServerContext) -> Starlette:
    async def handle(request: Request) -> Response:
        try:
            call = resolve(ctx, request)
            handler = route(call)
            return await handler(ctx, call)
        except S3Error as error:
            return error_response(ctx, error, request.url.path)
        except Exception:  # a bug of ours: say so as S3 does, and keep serving
            log.exception("internal error on %s %s", request.method, request.url.path)
            return error_response(ctx, S3Error("InternalError"))

    return Starlette(routes=[Route("/{path:path}", handle, methods=METHODS)])
