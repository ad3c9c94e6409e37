"""Management API of the reference (`/client/v4`): zone rulesets and log push jobs.

Routing is a small table rather than Starlette routes so that unknown paths, wrong methods,
bad credentials and malformed JSON all answer in the envelope (decisions.md) and never as
plain text or a 500.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from reference_impl import jsonbody
from reference_impl.context import ServerContext
from reference_impl.mgmt.dashboard import dashboard_routes
from reference_impl.mgmt.logpush import Jobs
from reference_impl.mgmt.r2_buckets_routes import r2_owners
from reference_impl.mgmt.r2_domains import R2Domains
from reference_impl.mgmt.routing import routing_table
from reference_impl.mgmt.rulesets import Rulesets
from reference_impl.mgmt.state import MgmtState
from reference_impl.storage import clock
from reference_impl.wire.mgmt.envelope import ApiError, error_table, fail, ok

BASE = "/client/v4"
EMAIL = re.compile(r"\A[^@\s]+@[^@\s]+\.[^@\s]+\Z")
API_KEY = re.compile(r"\A[0-9a-f]{37}\Z")  # the provider's global API keys: 37 lower-case hex
LOG = logging.getLogger(__name__)
# RFC 3986 section 2.2: `%2F` is data, not the delimiter `/`; the decoded path cannot tell them
# apart, so `buckets/<b>%2Fdomains%2Fcustom%2F<d>` reached the domain's route and
# `buckets/<b>%2F` bucket <b>'s (DELETE deleted it). No name the API routes on holds a `/`.
ENCODED_SLASH = b"%2f"


class MgmtApi:
    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.profile = ctx.profile
        error_table()  # fail at start, not on the first refusal, if the table is broken
        self.state = MgmtState(ctx.data_dir / "mgmt")
        ctx.shared.mgmt_state = self.state  # read by the edge surface (custom fields, jobs)
        self.rulesets = Rulesets(ctx.profile, self.state, clock.of(ctx))
        self.jobs = Jobs(ctx.profile, self.state, ctx.data_dir, ctx.store, ctx.identity.account_id)
        self.domains = R2Domains(ctx)
        owners = {"api": self, "domains": self.domains, **r2_owners(ctx)}
        self.table = routing_table(owners)  # routes.yaml

    async def handle(self, request: Request) -> Response:
        try:
            return await self._dispatch(request)
        except ApiError as error:
            return fail(self.profile, error)
        except Exception:  # a bug must still answer in the envelope
            LOG.exception("management API handler failed")
            return fail(self.profile, ApiError("internal"))

    async def _dispatch(self, request: Request) -> Response:
        # the request-target's path, decoded once: `request.url` splits `Host + path` again, so a
        # decoded `?` or `#` (`buckets/a%3Fx/y`) cut the route to bucket `a` (hostile round 11)
        path: str = request.scope["path"]
        if ENCODED_SLASH in request.scope.get("raw_path", b"").lower():
            raise ApiError("route_not_found", path)  # a `/` inside a segment is no separator
        if not path.startswith(BASE + "/"):
            raise ApiError("route_not_found", path)
        self._authenticate(request)
        rest = path[len(BASE) :]
        matches = [(m, rx.match(rest), h) for m, rx, h in self.table]
        found = [(m, hit, h) for m, hit, h in matches if hit]
        if not found:
            raise ApiError("route_not_found", path)
        chosen = next(((hit, h) for m, hit, h in found if m == request.method), None)
        if chosen is None:
            raise ApiError("method_not_allowed", request.method)
        hit, handler = chosen
        params = {**request.query_params, **hit.groupdict()}  # path parameters win
        if "zone" in params and params["zone"] != self.ctx.identity.zone_id:
            raise ApiError("zone_not_found", params["zone"])
        body: Any = None
        if request.method in ("POST", "PUT"):
            declared = request.headers.get("content-length", "")
            limit = int(self.profile.max_json_body_bytes)
            try:
                raw = await jsonbody.read_limited(request.stream(), declared, limit)
            except jsonbody.JsonBodyError as exc:
                raise ApiError("body_too_large", str(exc)) from None
            self._check_state_room(path, len(raw))
            try:  # strict RFC 8259 (no NaN), nesting bounded, each name once per object
                depth = int(self.profile.max_json_depth)
                body = await jsonbody.loads_bounded(raw, depth, True) if raw.strip() else None
            except jsonbody.JsonBodyError as exc:
                if self.profile.deviations.invalid_json_plain:
                    return PlainTextResponse("bad json", status_code=400)
                raise ApiError("invalid_json", str(exc)) from None
        result = await handler(params, body)
        if isinstance(result, Response):  # a handler that shapes its own answer (result_info)
            return result
        return ok(self.profile, result)

    def _check_state_room(self, path: str, size: int) -> None:
        """Rulesets and log push jobs live in one document rewritten on every change (and on
        every log batch's outcome): its size is bounded, or each rewrite stalls every surface
        (40 rulesets of 900 KB descriptions made each write ~0.5 s, growing)."""
        if "/rulesets" not in path and "/logpush" not in path:
            return
        cap = int(self.profile.mgmt_state_max_bytes)
        if self.state.size + size > cap:
            raise ApiError("body_too_large", f"stored rulesets and jobs would pass {cap} bytes")

    def _authenticate(self, request: Request) -> None:
        if self.profile.deviations.skip_auth:
            return
        email = request.headers.get("x-auth-email", "")
        key = request.headers.get("x-auth-key", "")
        ident = self.ctx.identity
        if email == ident.email and key == ident.api_key:
            return
        if "x-auth-email" not in request.headers or "x-auth-key" not in request.headers:
            raise ApiError("missing_auth_headers")  # decisions.md Auth errors: 9106, no chain
        chain = []
        if not EMAIL.match(email):
            chain.append("invalid_email_header")
        if not API_KEY.match(key):
            chain.append("invalid_key_header")
        if chain:
            raise ApiError("invalid_headers", chain=chain)
        if not self.profile.deviations.accept_unknown_credentials:
            raise ApiError("unknown_credentials")

    # -- handlers: (path params, parsed body) -> result -----------------------------------
    async def _list_rulesets(self, p: dict[str, str], body: Any) -> Any:
        return self.rulesets.list_all(p["zone"])

    async def _create_ruleset(self, p: dict[str, str], body: Any) -> Any:
        return self.rulesets.create(p["zone"], body)

    async def _get_ruleset(self, p: dict[str, str], body: Any) -> Any:
        return self.rulesets.get(p["zone"], p["id"])

    async def _put_ruleset(self, p: dict[str, str], body: Any) -> Any:
        return self.rulesets.update(p["zone"], p["id"], body)

    async def _delete_ruleset(self, p: dict[str, str], body: Any) -> Any:
        self.rulesets.delete(p["zone"], p["id"])
        # the provider answers a deleted ruleset with 204 and no body (its Rulesets API reference)
        return Response(status_code=204)

    async def _get_entry(self, p: dict[str, str], body: Any) -> Any:
        return self.rulesets.get_entrypoint(p["zone"], p["phase"])

    async def _put_entry(self, p: dict[str, str], body: Any) -> Any:
        return self.rulesets.put_entrypoint(p["zone"], p["phase"], body)

    async def _ownership(self, p: dict[str, str], body: Any) -> Any:
        return await self.jobs.ownership(p["zone"], body)

    async def _list_jobs(self, p: dict[str, str], body: Any) -> Any:
        return self.jobs.list_all(p["zone"])

    async def _create_job(self, p: dict[str, str], body: Any) -> Any:
        return self.jobs.create(p["zone"], body)

    async def _get_job(self, p: dict[str, str], body: Any) -> Any:
        return self.jobs.get(p["zone"], p["id"])

    async def _put_job(self, p: dict[str, str], body: Any) -> Any:
        return self.jobs.update(p["zone"], p["id"], body)

    async def _delete_job(self, p: dict[str, str], body: Any) -> Any:
        return self.jobs.delete(p["zone"], p["id"])


def build_app(ctx: ServerContext) -> Starlette:
    api = MgmtApi(ctx)
    methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
    # the dashboard page (dashboard.py) before the catch-all: everything else is the API
    routes = [*dashboard_routes(ctx), Route("/{path:path}", api.handle, methods=methods)]

    async def unrouted(request: Request, exc: Exception) -> Response:
        """What the catch-all cannot take (a path with a newline: `{path:path}` is `.*`; a
        method it does not list) still gets the API's envelope, never a plain-text 404/405."""
        return await api.handle(request)

    return Starlette(routes=routes, exception_handlers={404: unrouted, 405: unrouted})
