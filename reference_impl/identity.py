"""The reference's fixed, documented identities (account, zone, keys); overridable by env.

The bindings bridge token is the exception: generated at every start (unless
REFERENCE_BINDINGS_TOKEN sets it), printed by `conformance serve` and written to the ready file,
so that only a process that can read those may write account data through the bridge.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    account_id: str
    zone_id: str
    access_key_id: str
    secret_access_key: str
    email: str
    api_key: str
    # a second account, so that account scoping can be checked
    other_account_id: str
    other_access_key_id: str
    other_secret_access_key: str
    # bearer token of the bindings bridge (docs/bindings-bridge.md)
    bindings_token: str = ""


def default_identity() -> Identity:
    env = os.environ.get
    return Identity(
        account_id=env("REFERENCE_ACCOUNT_ID", "0123456789abcdef0123456789abcdef"),
        zone_id=env("REFERENCE_ZONE_ID", "fedcba9876543210fedcba9876543210"),
        access_key_id=env("REFERENCE_ACCESS_KEY_ID", "REFERENCEACCESSKEY01"),
        secret_access_key=env(
            "REFERENCE_SECRET_ACCESS_KEY", "reference-secret-access-key-0000000000000"
        ),
        email=env("REFERENCE_EMAIL", "owner@example.com"),
        api_key=env("REFERENCE_API_KEY", "0123456789abcdef0123456789abcdef01234"),
        other_account_id=env("REFERENCE_OTHER_ACCOUNT_ID", "11111111111111111111111111111111"),
        other_access_key_id=env("REFERENCE_OTHER_ACCESS_KEY_ID", "REFERENCEACCESSKEY02"),
        other_secret_access_key=env(
            "REFERENCE_OTHER_SECRET_ACCESS_KEY", "reference-other-secret-key-000000000000000"
        ),
        bindings_token=env("REFERENCE_BINDINGS_TOKEN") or secrets.token_urlsafe(32),
    )
