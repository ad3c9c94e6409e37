"""What every surface's ASGI app is built from: the profile, identities, data dir and store."""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference_impl.identity import Identity
from reference_impl.profile import Profile
from reference_impl.storage.audit_log import AuditTable
from reference_impl.storage.clock import Clock
from reference_impl.storage.engine import Store

if TYPE_CHECKING:  # types only: these modules import this one
    from reference_impl.body_guard import BodySlots
    from reference_impl.edge.delivery import Delivery
    from reference_impl.mgmt.state import MgmtState
    from reference_impl.services.domains import DomainRegistry


@dataclass
class SharedState:
    """What one part of the process sets up and another reads, each under its own name."""

    # the management API's zone state; the edge reads custom fields and log push jobs from it
    mgmt_state: MgmtState | None = None
    log_delivery: Delivery | None = None  # the edge's log push delivery
    body_slots: BodySlots | None = None  # one pool of request body slots for every listener
    tls_cert: str | None = None  # path of the S3 surface's certificate PEM (ready file)
    # surfaces beyond the eight, for the ready file (e.g. the migration source)
    extra_surfaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    lifecycle_lock: asyncio.Lock | None = None  # one lifecycle pass at a time
    lifecycle_task: asyncio.Task[None] | None = None  # the periodic lifecycle applier
    bindings_bucket_provisioned: bool = False  # the bound bucket was created this process


@dataclass
class ServerContext:
    data_dir: Path
    profile: Profile
    identity: Identity
    behaviour_date: dt.date
    store: Store  # opened by the server
    # replies wait for an fsync of what they report (`--durable`, reference_impl/durable_replies.py)
    durable_replies: bool = False
    # public URL of every listener once bound, e.g. {"s3": "http://127.0.0.1:4010"}
    urls: dict[str, str] = field(default_factory=dict)
    shared: SharedState = field(default_factory=SharedState)
    # the custom domain registry of the public surface (made by whichever surface asks first)
    domains: DomainRegistry | None = None

    @property
    def audit(self) -> AuditTable:
        """The audit log's table (what is recorded is services/audit.py's business)."""
        return self.store.audit

    @property
    def clock(self) -> Clock:
        """The server's clock; it lives with the store, which stamps what it keeps."""
        return self.store.clock
