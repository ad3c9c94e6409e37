"""One pytester run of the plugin that writes results.json, read back: the setup block the
plugin's tests repeated (conftest, test module, `--results`/`--as-of`, json.loads)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

AS_OF = "2024-01-01"


def run_with_results(
    pytester: pytest.Pytester,
    *args: str,
    source: str | None = None,
    conftest: str | None = None,
    name: str = "results",
    modules: Mapping[str, str] | None = None,
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Write `conftest`, the test module `source` and the named test `modules` (file stem ->
    source, for tests that need several files or a fixed file name) when given, run pytest with
    `--results` NAME.json and `--as-of` AS_OF (then `args`), and return its result and the
    parsed file."""
    if conftest is not None:
        pytester.makeconftest(conftest)
    if source is not None:
        pytester.makepyfile(source)
    if modules:
        pytester.makepyfile(**modules)
    out = pytester.path / f"{name}.json"
    result = pytester.runpytest("--results", str(out), "--as-of", AS_OF, *args)
    doc: dict[str, Any] = json.loads(out.read_text())
    return result, doc
