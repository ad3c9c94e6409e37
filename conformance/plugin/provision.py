"""The target of this process, resolved (or launched) on first use and cached."""

from __future__ import annotations

import pytest

from conformance import launcher
from conformance.model.targets import REFERENCE, Target, TargetError, load_target, targets_path
from conformance.plugin.preflight import stop_session
from conformance.plugin.state import get_state


def resolve_named(config: pytest.Config) -> Target:
    """A target of the targets file; usage error when unknown or badly defined."""
    options = get_state(config).options
    try:
        return load_target(options.target, targets_path(options.targets_file))
    except TargetError as exc:
        raise pytest.UsageError(f"--target: {exc}") from None


def current_target(session: pytest.Session) -> Target:
    config = session.config
    state = get_state(config)
    if state.target_cache is None and state.target_error is None:
        if state.options.target != REFERENCE:
            state.target_cache = resolve_named(config)
        else:
            try:
                state.reference = launcher.ensure_running(
                    state.run_dir, state.options.as_of, state.options.reference_profile
                )
            except (launcher.LaunchError, OSError, TimeoutError) as exc:
                state.target_error = f"target 'reference': {exc}"
            else:
                state.target_cache = Target(REFERENCE, state.reference.surfaces)
    if state.target_error is not None:
        stop_session(session, state.target_error)
    assert state.target_cache is not None
    return state.target_cache
