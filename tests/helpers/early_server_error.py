"""Test-only pytest plugin: the early-answer test's PUT gets a 503 before its body, as from a
target that fails on that request (storage/protocol/test_http_early_answer.py).

Loaded with `-p early_server_error` from the run's folder (a copy of this file there).
"""

from __future__ import annotations

from typing import Any

import pytest

ANSWER = (503, {"content-type": "application/xml"}, b"<Error><Code>SlowDown</Code></Error>")


def pytest_runtest_setup(item: pytest.Item) -> None:
    module: Any = getattr(item, "module", None)
    if module is None or not module.__name__.endswith("test_http_early_answer"):
        return
    send = module._send

    def early_503(conn: Any, method: str, url: str, headers: dict[str, str]) -> Any:
        return ANSWER if method == "PUT" else send(conn, method, url, headers)

    module._send = early_503
