"""The public bucket entrypoint (minimal): anonymous GET/HEAD of one bucket's objects.

It stands for a bucket on a custom domain: `/<key>` reads an object of the default account's
bucket named by the profile (`public_bucket`), with the same range handling as the S3 API.
CORS and gzip Content-Encoding come later.
"""

from __future__ import annotations

from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reference_impl.context import ServerContext
from reference_impl.s3.app import error_response
from reference_impl.s3.call import Call
from reference_impl.s3.errors import S3Error
from reference_impl.s3.objects import get_object


def build_app(ctx: ServerContext) -> Starlette:
    async def handle(request: Request) -> Response:
        if request.method == "OPTIONS":
            if "origin" not in request.headers:
                status = int(ctx.profile.public_options_without_origin_status)
                return Response("Origin header required", status_code=status)
            return Response(status_code=204)
        raw = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0]
        key = unquote(raw)[1:]
        try:
            if request.method not in ("GET", "HEAD"):
                raise S3Error("MethodNotAllowed")
            if not key:
                raise S3Error("NoSuchKey")
            call = Call(request, ctx.identity.account_id, str(ctx.profile.public_bucket), key)
            return await get_object(ctx, call)
        except S3Error as error:
            return error_response(ctx, error)

    methods = ["GET", "HEAD", "OPTIONS", "PUT", "POST", "DELETE"]
    return Starlette(routes=[Route("/{path:path}", handle, methods=methods)])
