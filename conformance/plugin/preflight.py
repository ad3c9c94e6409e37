"""Pre-flight: one cheap call per surface before its first test, failing the run fast.

An unreachable endpoint or refused credential would otherwise show up as hundreds of
identical errors; here it stops the session with one message naming the surface.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

import pytest

from conformance.model.targets import Target
from conformance.plugin.state import State

# surface -> client module offering `preflight(surface) -> str | None`
CLIENT_MODULES = {
    "s3": "conformance.clients.s3",
    "rules_api": "conformance.clients.rules_api",
    "mgmt": "conformance.clients.mgmt",
    "gateway": "conformance.clients.gateway",
    "bindings": "conformance.clients.bindings",
}


def probe(surface_name: str, surface: dict[str, Any]) -> str | None:
    """The client module's verdict on one surface: None when usable, else the problem."""
    module_name = CLIENT_MODULES.get(surface_name)
    if module_name is None:
        return None
    check = getattr(import_module(module_name), "preflight", None)
    if check is None:
        return None
    try:
        message = check(surface)
    except Exception as exc:
        return f"{surface_name} surface: pre-flight check raised {exc!r}"
    return None if message is None else str(message)


def stop_session(session: pytest.Session, message: str) -> None:
    """Fail the current test with `message` and stop the session after it (xdist too)."""
    session.shouldstop = message
    pytest.fail(message, pytrace=False)


def ensure(state: State, session: pytest.Session, target: Target, surface_name: str) -> None:
    if surface_name not in state.preflight_done:
        state.preflight_done[surface_name] = probe(surface_name, target.surface(surface_name))
    message = state.preflight_done[surface_name]
    if message is not None:
        stop_session(session, f"target {target.name!r}: {message}")
