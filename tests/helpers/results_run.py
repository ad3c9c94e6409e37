"""One pytester run of the plugin that writes results.json, read back: the setup block the
plugin's tests repeated (conftest, test module, `--results`/`--as-of`, json.loads)."""

from __future__ import annotations

import json
from typing import Any

import pytest

AS_OF = "2024-01-01"


def run_with_results(
    pytester: pytest.Pytester,
    *args: str,
    source: str | None = None,
    conftest: str | None = None,
    name: str = "results",
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Write `conftest` and the test module `source` when given, run pytest with `--results`
    NAME.json and `--as-of` AS_OF (then `args`), and return its result and the parsed file."""
    if conftest is not None:
        pytester.makeconftest(conftest)
    if source is not None:
        pytester.makepyfile(source)
    out = pytester.path / f"{name}.json"
    result = pytester.runpytest("--results", str(out), "--as-of", AS_OF, *args)
    doc: dict[str, Any] = json.loads(out.read_text())
    return result, doc
