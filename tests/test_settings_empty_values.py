"""Fixed defect (a review of 9788910), kept as a regression test:
an empty `CONFORMANCE_API_TIMEOUT` / `CONFORMANCE_READY_TIMEOUT` (a CI template's
`VAR: ""`) crashes the import of the module that reads it, where settings.text treats empty as
unset and the README shows a default; a malformed ZONE_WAIT/LEASE_TTL/LOG_WAIT is silently
ignored instead, so the strictness differs by variable without the README saying so."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("CONFORMANCE_API_TIMEOUT", "conformance.clients.rules_api"),
        ("CONFORMANCE_READY_TIMEOUT", "conformance.launcher"),
    ],
)
def test_an_empty_variable_is_unset(name: str, module: str) -> None:
    env = {**os.environ, name: ""}
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-300:]


def test_a_malformed_variable_is_a_clear_error_when_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance import settings
    from conformance.clients.rules_api import api_timeout

    monkeypatch.setenv("CONFORMANCE_API_TIMEOUT", "15s")
    with pytest.raises(settings.SettingError, match=r"CONFORMANCE_API_TIMEOUT='15s' is not a"):
        api_timeout()
    monkeypatch.setenv("CONFORMANCE_API_TIMEOUT", " ")
    assert api_timeout() == 15.0
    monkeypatch.setenv("CONFORMANCE_LOG_WAIT", "-1")
    with pytest.raises(settings.SettingError, match="CONFORMANCE_LOG_WAIT"):
        settings.seconds(settings.LOG_WAIT, 60.0)


@pytest.mark.parametrize(
    ("variable", "value"),
    # "inf": float() takes it (tests/test_settings_infinite_seconds.py)
    [("CONFORMANCE_READY_TIMEOUT", "30s"), ("CONFORMANCE_API_TIMEOUT", "inf")],
)
def test_the_cli_refuses_a_malformed_variable_up_front(variable: str, value: str) -> None:
    """`conformance` names the variable and exits 2 before any run starts, never a traceback
    from inside the pytest child."""
    env = {**os.environ, variable: value}
    code = "import sys; from conformance.cli import main; sys.exit(main(['rules']))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr[-300:])
    assert variable in done.stderr and "Traceback" not in done.stderr
