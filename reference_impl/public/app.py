"""Placeholder public surface; replaced by its real implementation."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from reference_impl.context import ServerContext


def build_app(ctx: ServerContext) -> Starlette:
    async def not_yet(request: Request) -> PlainTextResponse:
        return PlainTextResponse("not implemented", status_code=501)

    return Starlette(routes=[Route("/{path:path}", not_yet, methods=["GET", "POST", "PUT", "DELETE", "HEAD"])])
