"""Routing-table entries of the R2 part of the management API (account scoped) and of the
reference-only clock, for the table in reference_impl/mgmt/app.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from reference_impl.context import ServerContext
from reference_impl.mgmt.clock_admin import ClockAdmin
from reference_impl.mgmt.r2_buckets import R2Buckets
from reference_impl.mgmt.sippy import Sippy
from reference_impl.services.migration.source import announce_source

Handler = Callable[[dict[str, str], Any], Awaitable[Any]]


def r2_routes(ctx: ServerContext) -> list[tuple[str, str, Handler]]:
    announce_source(ctx)
    buckets = R2Buckets(ctx)
    sippy = Sippy(buckets)
    clock = ClockAdmin(ctx)
    a = r"/accounts/(?P<account>[^/]+)/r2"
    b = a + r"/buckets/(?P<bucket>[^/]+)"
    return [
        ("GET", a + r"/buckets", buckets.list),
        ("POST", a + r"/buckets", buckets.create),
        ("GET", b, buckets.get),
        ("DELETE", b, buckets.delete),
        ("GET", b + r"/sippy", sippy.get),
        ("PUT", b + r"/sippy", sippy.put),
        ("DELETE", b + r"/sippy", sippy.delete),
        ("POST", b + r"/sippy/validate", sippy.validate),
        ("GET", a + r"/audit", buckets.audit_log),
        ("POST", r"/_reference/clock", clock.advance),  # REFERENCE-ONLY (lifecycle tests)
    ]
