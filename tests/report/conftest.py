"""Fixtures of the report tests: the sample results files of fixtures/results/."""

from __future__ import annotations

from typing import Any

import pytest
from report_helpers import load


@pytest.fixture
def mixed() -> dict[str, Any]:
    return load("mixed")


@pytest.fixture
def all_pass() -> dict[str, Any]:
    return load("all-pass")


@pytest.fixture
def older() -> dict[str, Any]:
    return load("older")
