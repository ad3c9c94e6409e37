"""Hooks the plugin offers to conftests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_conformance_catalog(config: pytest.Config) -> Any:
    """Return the rule catalog to use instead of the packaged one (None: the packaged one).

    The project's own plugin tests use it to run test-local suites against tiny catalogs; the
    object needs the API of `conformance.model.catalog.Catalog`.
    """
