"""The log tests' traffic against a zone whose origin refuses some methods.

A real zone's origin is the user's: it may answer a POST 405. Cloudflare logs a request whatever
its answer, so a refused POST is still traffic whose entry the logs tests read; only the GETs,
whose echoed body the tests use, must succeed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conformance.suite.logs import log_delivery


class _GetOnly(BaseHTTPRequestHandler):
    """An origin that echoes a GET and refuses every other method, as a static site does."""

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer(200, b'{"echo": true}')

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer(405, b"method not allowed")

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def origin() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GetOnly)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_refused_post_is_still_traffic(origin: str) -> None:
    """A 405 to the POST is the origin's answer, not a setup that did not hold."""
    assert log_delivery._send(origin, "/ec-logs/m/post", {}, "POST") == {}


def test_get_is_echoed(origin: str) -> None:
    assert log_delivery._send(origin, "/ec-logs/m/all", {}, "GET") == {"echo": True}
