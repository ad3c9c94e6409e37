"""The bridge's bound bucket: created once per data directory, as deploying a binding would.

A worker's binding names a bucket that exists when the worker is deployed; the bridge stands in
for such a worker bound to `conformance-bindings` (docs/bindings-bridge.md). So the reference
creates that bucket the first time its data directory serves the bridge, the way every bucket
is created (the default lifecycle rules, an audit entry), and notes that it did: a bound bucket
deleted later stays deleted, also after a restart. The bridge never creates any other bucket.
Done on the first call naming the bucket, so a reference whose bridge is never used has no
such bucket (nor its audit entry).
"""

from __future__ import annotations

import asyncio
import contextlib

from reference_impl.context import ServerContext
from reference_impl.services import audit
from reference_impl.services.lifecycle import applier as lifecycle_applier
from reference_impl.services.lifecycle import config as lifecycle_config

BOUND_BUCKET = "conformance-bindings"  # the default of conformance/clients/bindings.py
MARKER = "bindings-bucket-provisioned"


def provision_bound_bucket(ctx: ServerContext, name: str) -> None:
    """Create the bound bucket if this data directory never had it (`name`: the call's)."""
    if name != BOUND_BUCKET or ctx.shared.bindings_bucket_provisioned:
        return
    ctx.shared.bindings_bucket_provisioned = True
    marker = ctx.store.root / MARKER
    if marker.exists():
        return
    account = ctx.identity.account_id
    if ctx.store.create_bucket(account, BOUND_BUCKET, "auto"):
        if lifecycle_config.seed_default(ctx.store, ctx.profile, account, BOUND_BUCKET):
            with contextlib.suppress(RuntimeError):  # no loop yet: started with the next bucket
                asyncio.get_running_loop()
                lifecycle_applier.ensure_running(ctx)
        audit.record(ctx, account, BOUND_BUCKET, "CreateBucket", {"location": "auto"}, "bindings")
    marker.write_text("the bindings bridge's bound bucket was created once\n", encoding="utf-8")
