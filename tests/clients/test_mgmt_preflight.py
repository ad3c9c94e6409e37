"""conformance/clients/mgmt.py preflight: the plainest bucket list, with no query parameter.

A pre-flight that sent `per_page=1` stopped the whole session as a "configuration" problem on a
target whose per_page check is off by one, so no per_page rule could FAIL (the mutation run of
reference_impl/mgmt/r2_buckets.py:83 ended as "other exits"). It proves reachability and
credentials only; the messages stay as they were.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from conformance.clients.mgmt import preflight


class Recording(ThreadingHTTPServer):
    """Answers every request with `status` and an envelope; keeps each request's path."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.status = 200
        self.codes: list[int] = []
        self.paths: list[str] = []


class Handler(BaseHTTPRequestHandler):
    server: Recording

    def do_GET(self) -> None:
        self.server.paths.append(self.path)
        ok = self.server.status < 300
        errors = [{"code": code, "message": "refused"} for code in self.server.codes]
        body = json.dumps(
            {"success": ok, "errors": errors, "messages": [], "result": {"buckets": []}}
        ).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Recording]:
    srv = Recording()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _surface(srv: Recording) -> dict[str, str]:
    host, port = srv.server_address[:2]
    return {
        "base_url": f"http://{host!s}:{port}/client/v4",
        "email": "user@example.com",
        "api_key": "key",
        "account_id": "acc1",
    }


def test_lists_buckets_with_no_query_parameter(server: Recording) -> None:
    assert preflight(_surface(server)) is None
    assert server.paths == ["/client/v4/accounts/acc1/r2/buckets"]


def test_refused_credentials_are_named(server: Recording) -> None:
    server.status, server.codes = 403, [10000]
    message = preflight(_surface(server))
    assert message is not None
    assert message.endswith("credentials refused (HTTP 403, 10000)"), message


def test_other_refusals_name_the_call(server: Recording) -> None:
    server.status, server.codes = 404, [7003]
    message = preflight(_surface(server))
    assert message is not None
    assert message.endswith("GET r2/buckets answered HTTP 404 (7003)"), message


def test_missing_setting_is_named(server: Recording) -> None:
    surface = _surface(server)
    del surface["account_id"]
    assert preflight(surface) == (
        f"mgmt surface at {surface['base_url']}: missing setting 'account_id'"
    )
    assert server.paths == []
