"""The dashboard path of Area A: a minimal page for a zone's log custom fields.

The spec names a second way to set custom fields besides the rules API: Analytics & Logs >
Custom Fields > Edit Custom Fields > Set new Custom Field. The reference serves that page on the
management listener so a browser user (and a project test in headless Chromium) can walk it.
The page is static package data: it holds no credentials and no server-side logic of its own,
and talks only to the same rules API (entry point GET/PUT) as every other client, with the
X-Auth-Email / X-Auth-Key the user types into its login form. So the page can never disagree
with the API: every refusal it shows is the API's own error message.
"""

from __future__ import annotations

import html
from functools import cache
from importlib import resources

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from reference_impl.context import ServerContext

PAGE_PATH = "/dashboard/zones/{zone_id}/logs/custom-fields"
STATIC_PATH = "/dashboard/static/{name}"
STATIC_TYPES = {
    "custom_fields.js": "text/javascript; charset=utf-8",
    "dashboard.css": "text/css; charset=utf-8",
}
# scripts and styles only from the listener itself, no inline code, no framing: the page
# handles an API key, so nothing else may run in it
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@cache
def _asset(name: str) -> str:
    """A file of `reference_impl/mgmt/dashboard/`, read once (package data, see pyproject)."""
    return resources.files("reference_impl.mgmt").joinpath("dashboard", name).read_text("utf-8")


def dashboard_routes(ctx: ServerContext) -> list[Route]:
    """Routes to mount before the management API's catch-all route."""
    zone_id = ctx.identity.zone_id

    async def page(request: Request) -> Response:
        if request.path_params["zone_id"] != zone_id:
            return HTMLResponse(
                "<!doctype html><title>Zone not found</title><p>Zone not found.</p>",
                status_code=404,
                headers=HEADERS,
            )
        body = _asset("custom_fields.html").replace("{{zone_id}}", html.escape(zone_id))
        return HTMLResponse(body, headers=HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        media_type = STATIC_TYPES.get(name)
        if media_type is None:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(_asset(name), media_type=media_type, headers=HEADERS)

    return [
        Route(PAGE_PATH, page, methods=["GET", "HEAD"]),
        Route(STATIC_PATH, static, methods=["GET", "HEAD"]),
    ]
