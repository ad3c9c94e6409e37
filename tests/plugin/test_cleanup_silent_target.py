"""Cleanup stops calling a target that timed out on it (conformance/plugin/cleanup.py): each
further call would wait the client's 60 s read timeout, minutes at the end of a run whose
target hung (seen under a mutant of the reference that loops forever in ListObjects)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError

from conformance.plugin import cleanup


class HungTarget:
    def __init__(self, endpoint: str) -> None:
        self.surface = {"endpoint": endpoint}
        self.calls: list[str] = []

    def delete_bucket_recursive(self, name: str) -> None:
        self.calls.append(f"delete {name}")
        raise ReadTimeoutError(endpoint_url=self.surface["endpoint"])

    def list_bucket_names(self, prefix: str = "") -> list[str]:
        self.calls.append("list")
        raise ReadTimeoutError(endpoint_url=self.surface["endpoint"])


class FailingTarget(HungTarget):
    def delete_bucket_recursive(self, name: str) -> None:
        self.calls.append(f"delete {name}")
        raise RuntimeError("403 AccessDenied")


@pytest.fixture(autouse=True)
def fresh() -> Any:
    cleanup.forget_silent_targets()
    yield
    cleanup.forget_silent_targets()


def test_after_one_timeout_cleanup_skips_that_target_and_says_so() -> None:
    hung = HungTarget("http://127.0.0.1:1")
    with pytest.warns(cleanup.CleanupWarning, match="not deleted: Read timeout"):
        cleanup.delete_bucket(hung, "ec-00000000-a")
    with pytest.warns(cleanup.CleanupWarning, match="did not answer an earlier cleanup request"):
        cleanup.delete_bucket(hung, "ec-00000000-b")
        assert cleanup.delete_prefixed(hung, "ec-00000000-") == []
    assert hung.calls == ["delete ec-00000000-a"]
    assert cleanup.silent_reason(HungTarget("http://127.0.0.1:1"))  # any client of it
    other = HungTarget("http://127.0.0.1:2")  # another endpoint is still tried
    with pytest.warns(cleanup.CleanupWarning):
        cleanup.delete_prefixed(other, "ec-00000000-")
    assert other.calls == ["list"]


def test_an_error_that_is_not_a_timeout_does_not_stop_the_cleanup() -> None:
    failing = FailingTarget("http://127.0.0.1:3")
    with pytest.warns(cleanup.CleanupWarning):
        cleanup.delete_bucket(failing, "ec-00000000-a")
        cleanup.delete_bucket(failing, "ec-00000000-b")
    assert failing.calls == ["delete ec-00000000-a", "delete ec-00000000-b"]
    assert cleanup.silent_reason(failing) is None


def test_a_new_session_tries_every_target_again() -> None:
    hung = HungTarget("http://127.0.0.1:4")
    with pytest.warns(cleanup.CleanupWarning):
        cleanup.delete_bucket(hung, "ec-00000000-a")
    cleanup.forget_silent_targets()
    assert cleanup.silent_reason(hung) is None
