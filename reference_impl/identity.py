"""The reference's fixed, documented identities (account, zone, keys); overridable by env."""

from __future__ import annotations

import os
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
    )
