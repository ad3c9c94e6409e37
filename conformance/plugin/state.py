"""Per-run state of the plugin, kept in the pytest config's stash.

Building it is cheap and touches nothing outside the process (inert unless used): the run
prefix is random, the run directory is only a path until the reference has to be launched.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance.plugin.options import Options

if TYPE_CHECKING:
    from conformance.launcher import ReferenceProcess
    from conformance.model.targets import Target

WORKERINPUT_KEY = "edge_conformance"


@dataclass
class State:
    options: Options
    run_prefix: str
    run_dir: Path
    is_worker: bool
    worker_id: str
    owner_pid: int = 0  # the run's controller (or only) process: the registry's liveness check
    catalog_cache: Any = None
    target_cache: Target | None = None
    target_error: str | None = None
    reference: ReferenceProcess | None = None
    preflight_done: dict[str, str | None] = field(default_factory=dict)
    surfaces_used: set[str] = field(default_factory=set)
    registered: bool = False  # this process entered the run in the safety registry
    target_version: str | None = None  # what the target says of itself (end of run)
    # what no case records: a module that did not import, an internal error, a dead reference
    problems: list[dict[str, Any]] = field(default_factory=list)

    def catalog(self, config: pytest.Config) -> Any:
        """The rule catalog, loaded on first use (a conftest may supply a test catalog)."""
        if self.catalog_cache is None:
            supplied = config.hook.pytest_conformance_catalog(config=config)
            if supplied is None:
                from conformance.model.catalog import load_catalog

                supplied = load_catalog()
            self.catalog_cache = supplied
        return self.catalog_cache


STATE_KEY = pytest.StashKey[State]()


def new_run_prefix() -> str:
    return f"ec-{secrets.token_hex(4)}"


def build_state(config: pytest.Config, options: Options) -> State:
    shared: dict[str, str] | None = getattr(config, "workerinput", {}).get(WORKERINPUT_KEY)
    if shared is not None:
        prefix, run_dir = shared["run_prefix"], Path(shared["run_dir"])
        owner = int(shared.get("owner_pid") or os.getppid())
    else:
        prefix = new_run_prefix()
        run_dir = Path(tempfile.gettempdir()) / f"edge-conformance-{prefix}"
        owner = os.getpid()
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    is_worker = hasattr(config, "workerinput")
    return State(options, prefix, run_dir, is_worker, str(worker), owner_pid=owner)


def get_state(config: pytest.Config) -> State:
    return config.stash[STATE_KEY]


def workerinput_for(state: State) -> dict[str, str]:
    """What the controller hands every xdist worker, so that all share one run."""
    return {
        "run_prefix": state.run_prefix,
        "run_dir": str(state.run_dir),
        "owner_pid": str(state.owner_pid),
    }
