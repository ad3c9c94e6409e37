"""Plugin tests: a pytester directory with the fake catalog wired in."""

from __future__ import annotations

import pytest
from fake_catalog import conftest_source


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester dir whose conftest supplies the fake catalog (default rules)."""
    pytester.makeconftest(conftest_source())
    return pytester
