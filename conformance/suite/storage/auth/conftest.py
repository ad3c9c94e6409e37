"""Fixtures the SigV4 form tests share."""

from __future__ import annotations

import datetime as dt

import pytest

from conformance.plugin.state import get_state

PRESIGNED_RULE = "storage.auth.presigned-get"


@pytest.fixture
def presigned_in_force(pytestconfig: pytest.Config, as_of: dt.date) -> None:
    """Skip (N/A) a presigned-URL case at a date before presigned URLs took effect (the
    catalog's `since` of storage.auth.presigned-get): the target then refuses every presigned
    URL (the reference: 501 NotImplemented), which says nothing of the form under test."""
    since = get_state(pytestconfig).catalog(pytestconfig).get(PRESIGNED_RULE).since
    if since is not None and as_of < since:
        pytest.skip(f"N/A: presigned URLs are not in force before {since} ({PRESIGNED_RULE})")
