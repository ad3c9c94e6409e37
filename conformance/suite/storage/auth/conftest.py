"""Fixtures the SigV4 form tests share."""

from __future__ import annotations

from collections.abc import Callable

import pytest

PRESIGNED_RULE = "storage.auth.presigned-get"


@pytest.fixture
def presigned_in_force(in_force: Callable[[str], bool]) -> None:
    """Skip (N/A) a presigned-URL case at a date before presigned URLs took effect (the
    catalog's `since` of storage.auth.presigned-get): the target then refuses every presigned
    URL (the reference: 501 NotImplemented), which says nothing of the form under test."""
    if not in_force(PRESIGNED_RULE):
        pytest.skip(f"N/A: presigned URLs are not in force at this date ({PRESIGNED_RULE})")
