"""Inert unless used: the auto-loaded plugin starts, writes and cleans nothing by itself."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from conformance import launcher


@pytest.fixture
def no_launch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Any launch attempt fails the inner run; the run dirs would land in the returned dir."""
    runs = tmp_path / "tmp"
    runs.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(runs))

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the plugin launched something")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    return runs


def test_plain_run_does_nothing(pytester: pytest.Pytester, no_launch: Path) -> None:
    pytester.makepyfile("def test_plain(tmp_path):\n    assert tmp_path.is_dir()\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert not [p for p in no_launch.iterdir() if p.name.startswith("edge-conformance-")]
    assert not list(pytester.path.rglob("*.json"))


def test_rule_test_without_target_fixture_starts_nothing(
    suite: pytest.Pytester, no_launch: Path
) -> None:
    suite.makepyfile(
        """
        import pytest

        @pytest.mark.rule("storage.put.ok")
        def test_dated(as_of, expected, run_prefix, names):
            assert run_prefix.startswith("ec-") and len(run_prefix) == 11
            assert names.bucket().startswith(run_prefix + "-main-")
        """
    )
    suite.runpytest().assert_outcomes(passed=1)
    assert not [p for p in no_launch.iterdir() if p.name.startswith("edge-conformance-")]


def test_launch_failure_names_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_READY_TIMEOUT", "5")
    monkeypatch.setattr(
        launcher, "command", lambda *a: ["python3", "-c", "import sys; sys.exit('no port')"]
    )
    with pytest.raises(launcher.LaunchError, match=r"exited with code 1.*\n.*no port"):
        launcher.launch(tmp_path, __import__("datetime").date(2024, 1, 1), {})


def test_an_interrupt_while_the_reference_starts_stops_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ctrl-C during the wait for the ready file: the reference (a session of its own, so the
    terminal's SIGINT never reaches it) is killed, not left running (a hostile round found
    `conformance replay` leaving one behind)."""
    started: list[Any] = []
    real_spawn = launcher.spawn

    def spawn(cmd: list[str], log: Path) -> Any:
        child = real_spawn(["python3", "-c", "import time; time.sleep(60)"], log)
        started.append(child)
        return child

    def interrupted(_: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(launcher, "spawn", spawn)
    monkeypatch.setattr(launcher.time, "sleep", interrupted)
    with pytest.raises(KeyboardInterrupt):
        launcher.launch(tmp_path, __import__("datetime").date(2024, 1, 1), {})
    assert started and started[0].poll() is not None, "the child outlived the interrupt"
