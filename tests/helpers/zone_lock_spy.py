"""Test-only pytest plugin: record every zone-changing rules API call made while the run's
zone lock is free.

Zone-wide state (the log custom fields entry point, the zone's jobs) must only change under
`zone_lock` (conformance/plugin/zone_test_lock.py); a call made without it races another xdist
worker's test whatever the scheduling. Loaded with `-p zone_lock_spy` in a run without xdist,
so "free" means "not held by this process": the race is seen deterministically.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.plugin.state import get_state

MUTATING = (
    "create_ruleset",
    "update_ruleset",
    "delete_ruleset",
    "put_entrypoint",
    "create_job",
    "update_job",
    "delete_job",
)
REPORT = "unlocked_calls.jsonl"


def lock_is_free(path: Path) -> bool:
    """True when no open file description holds the flock (filelock's Unix lock)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(fh, fcntl.LOCK_UN)
        return True


def _spied(config: pytest.Config, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    report = Path(config.invocation_params.dir) / REPORT

    @functools.wraps(original)
    def call(self: RulesApiClient, *args: Any, **kwargs: Any) -> Any:
        if lock_is_free(get_state(config).run_dir / "zone.lock"):
            where = os.environ.get("PYTEST_CURRENT_TEST", "(outside a test)")
            with report.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"call": name, "test": where}) + "\n")
        return original(self, *args, **kwargs)

    return call


def pytest_configure(config: pytest.Config) -> None:
    for name in MUTATING:
        setattr(RulesApiClient, name, _spied(config, name, getattr(RulesApiClient, name)))
