"""The handler owners of the R2 part of the management API (account scoped) and of the
reference-only clock, named by the routes of reference_impl/mgmt/routes.yaml."""

from __future__ import annotations

from reference_impl.context import ServerContext
from reference_impl.mgmt.clock_admin import ClockAdmin
from reference_impl.mgmt.r2_buckets import R2Buckets
from reference_impl.mgmt.sippy import Sippy
from reference_impl.services.migration.source import announce_source


def r2_owners(ctx: ServerContext) -> dict[str, object]:
    announce_source(ctx)
    buckets = R2Buckets(ctx)
    return {"buckets": buckets, "sippy": Sippy(buckets), "clock": ClockAdmin(ctx)}
