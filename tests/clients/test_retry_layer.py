"""conformance/clients/retry.py: only transient failures of idempotent requests are retried,
each retry is in the evidence, and `no_retry()` shows the raw answer."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
from botocore.exceptions import ClientError

from conformance.clients import retry
from conformance.clients.evidence import collector
from conformance.clients.s3 import make_boto

RESET = -1  # scripted answer: close the connection without a reply


class Scripted(ThreadingHTTPServer):
    """Answers requests from a script of (status, headers), then 200; counts what it saw."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.script: list[tuple[int, dict[str, str]]] = []
        self.seen: list[str] = []


class Handler(BaseHTTPRequestHandler):
    server: Scripted

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        self.server.seen.append(self.command)
        status, headers = self.server.script.pop(0) if self.server.script else (200, {})
        if status == RESET:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.send_response(status)
        for key, value in {"Content-Length": "0", **headers}.items():
            self.send_header(key, value)
        self.end_headers()

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Scripted]:
    srv = Scripted()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    collector.reset()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry, "BACKOFF_S", 0.01)


def _url(srv: Scripted) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}/b/k"


def _get(srv: Scripted, method: str = "GET") -> requests.Response:
    return retry.mount(requests.Session()).request(method, _url(srv), timeout=5)


@pytest.mark.parametrize(
    "first",
    [(503, {"Retry-After": "0"}), (429, {"Retry-After": "0"}), (502, {}), (RESET, {})],
    ids=["503-retry-after", "429-retry-after", "502", "reset"],
)
def test_transient_failure_of_get_is_retried_and_recorded(
    server: Scripted, first: tuple[int, dict[str, str]]
) -> None:
    server.script = [first]
    assert _get(server).status_code == 200
    assert server.seen == ["GET", "GET"]
    (kept,) = collector.reset()
    assert kept.body_excerpt.startswith("retried: ")
    assert kept.status == (None if first[0] == RESET else first[0])


@pytest.mark.parametrize(
    ("method", "first"),
    [
        ("GET", (503, {})),
        ("GET", (429, {})),
        ("GET", (500, {})),
        ("POST", (502, {})),
        ("GET", (503, {"Retry-After": "3600"})),
    ],
    ids=["503-bare", "429-bare", "500", "post", "long-retry-after"],
)
def test_other_answers_are_kept_raw(
    server: Scripted, method: str, first: tuple[int, dict[str, str]]
) -> None:
    server.script = [first]
    assert _get(server, method).status_code == first[0]
    assert server.seen == [method]
    assert collector.reset() == []


def test_no_retry_shows_the_raw_answer(server: Scripted) -> None:
    server.script = [(503, {"Retry-After": "0"})]
    with retry.no_retry():
        assert _get(server).status_code == 503
    assert server.seen == ["GET"]


def test_attempts_are_bounded(server: Scripted) -> None:
    server.script = [(502, {})] * 10
    assert _get(server).status_code == 502
    assert len(server.seen) == retry.MAX_ATTEMPTS
    assert len(collector.reset()) == retry.MAX_ATTEMPTS - 1


def test_boto_client_retries_the_same_way(server: Scripted) -> None:
    surface = {"endpoint": f"http://127.0.0.1:{server.server_address[1]}",
               "access_key_id": "AKID", "secret_access_key": "secret"}  # fmt: skip
    s3 = make_boto(surface)
    server.script = [(503, {"Retry-After": "0"})]
    s3.head_bucket(Bucket="b")
    assert server.seen == ["HEAD", "HEAD"]
    retried = [e for e in collector.reset() if e.body_excerpt.startswith("retried: ")]
    assert [e.status for e in retried] == [503]
    for status in (500, 503, 504):  # botocore's own retries are really off
        server.script, server.seen = [(status, {})], []
        with pytest.raises(ClientError, match=str(status)):
            s3.head_bucket(Bucket="b")
        assert server.seen == ["HEAD"], status
