"""Pre-flight: an unreachable surface stops the run at its first test, naming the surface."""

from __future__ import annotations

import types

import pytest

UNREACHABLE = """
[targets.staging.s3]
endpoint = "http://127.0.0.1:9"
access_key_id_env = "PF_KEY_ID"
secret_access_key_env = "PF_SECRET"
"""
TESTS = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_first(s3):
    pass

@pytest.mark.rule("storage.put.ok")
def test_second(s3):
    pass
"""


@pytest.fixture
def staging(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PF_KEY_ID", "AK")
    monkeypatch.setenv("PF_SECRET", "SK")
    suite.makefile(".toml", conformance=UNREACHABLE)
    suite.makepyfile(TESTS)
    return suite


def _assert_stopped_at_first_test(result: pytest.RunResult, message: str) -> None:
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*Interrupted: target 'staging': {message}*"])
    assert "test_second" not in result.stdout.str().replace("short test summary", "")


def test_preflight_message_stops_the_run(
    staging: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, str]] = []

    def preflight(surface: dict[str, str]) -> str:
        calls.append(surface)
        return f"s3 surface at {surface['endpoint']} unreachable (connection refused)"

    fake = types.ModuleType("conformance.clients.s3")
    fake.preflight = preflight  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "conformance.clients.s3", fake)
    result = staging.runpytest("--target", "staging")
    _assert_stopped_at_first_test(
        result, "s3 surface at http://127.0.0.1:9 unreachable (connection refused)"
    )
    assert len(calls) == 1


def test_real_s3_client_preflight_on_unreachable_endpoint(staging: pytest.Pytester) -> None:
    pytest.importorskip("conformance.clients.s3")
    result = staging.runpytest("--target", "staging")
    _assert_stopped_at_first_test(result, "s3 surface at http://127.0.0.1:9*unreachable*")
