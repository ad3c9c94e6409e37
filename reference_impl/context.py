"""What every surface's ASGI app is built from: the profile, identities, data dir and store."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference_impl.identity import Identity
from reference_impl.profile import Profile


@dataclass
class ServerContext:
    data_dir: Path
    profile: Profile
    identity: Identity
    behaviour_date: dt.date
    store: Any = None  # reference_impl.storage.engine.Store, opened by the server
    # replies wait for an fsync of what they report (`--durable`, reference_impl/durable_replies.py)
    durable_replies: bool = False
    # public URL of every listener once bound, e.g. {"s3": "http://127.0.0.1:4010"}
    urls: dict[str, str] = field(default_factory=dict)
    # per-surface state that one surface exposes to another (e.g. log records for delivery)
    shared: dict[str, Any] = field(default_factory=dict)
