"""Log push delivery is bounded per job (issue 26, MEDIUM 7).

On main one lock covered every job's delivery: a collector answering one byte a second never
tripped the 10 s read timeout, so another job's batches waited behind it, the flush trigger
hung and lines piled up without bound. Here a trickling collector costs its own job at most
`logpush_timeout_s`; a second job's batch arrives at once, the flush trigger answers within
that bound, and lines past `log_pending_max_lines` are dropped and reported in the job.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from reliability.refproc import RefProcess, start

from conformance.clients.rules_api import RulesApiClient

TOTAL = 3.0  # logpush_timeout_s of this module's reference (default 30)
PENDING = 20  # log_pending_max_lines (default 50000)
SLACK = 6.0
FLUSH_PATH = "/cdn-cgi/edge-conformance/flush"
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class _Collector(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.slow = threading.Event()
        self.stop = threading.Event()
        self.bodies: list[bytes] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/logs"


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server: _Collector = self.server  # type: ignore[assignment]
        sock: socket.socket = self.request
        sock.settimeout(10)
        data = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in data:
                data += sock.recv(65536) or b"\0"
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                (int(line.split(b":")[1]) for line in head.split(b"\r\n")
                 if line.lower().startswith(b"content-length:")), 0)  # fmt: skip
            while len(body) < length:
                body += sock.recv(65536) or b"\0"
            server.bodies.append(body)
            if not server.slow.is_set():
                sock.sendall(ANSWER)
                return
            for byte in ANSWER:  # one byte a second: never a read timeout
                if server.stop.wait(1.0):
                    return
                sock.sendall(bytes([byte]))


@pytest.fixture
def collectors() -> Iterator[tuple[_Collector, _Collector]]:
    pair = (_Collector(), _Collector())
    for server in pair:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield pair
    for server in pair:
        server.stop.set()
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    data = tmp_path_factory.mktemp("delivery") / "data"
    proc = start(data, "--profile", f"logpush_timeout_s={TOTAL}",
                 "--profile", f"log_pending_max_lines={PENDING}")  # fmt: skip
    yield proc
    proc.stop()


def _job(api: RulesApiClient, collector: _Collector, name: str) -> dict[str, Any]:
    api.request_ownership(collector.url).assert_envelope_ok(200)
    token = collector.bodies.pop().decode()
    return dict(
        api.create_job(
            {
                "name": name,
                "destination_conf": collector.url,
                "dataset": "http_requests",
                "logpull_options": "fields=ClientRequestURI&timestamps=unixnano",
                "ownership_challenge": token,
                "enabled": True,
            }
        ).assert_envelope_ok()
    )


@pytest.mark.slow
def test_slow_collector_delays_only_its_own_job(
    ref: RefProcess, collectors: tuple[_Collector, _Collector]
) -> None:
    slow, fast = collectors
    api = RulesApiClient.from_surface(ref.surface("rules_api"))
    edge = str(ref.surface("edge")["url"])
    jobs = [_job(api, slow, "slow-collector"), _job(api, fast, "fast-collector")]
    try:
        slow.slow.set()
        fast.bodies.clear()
        assert requests.get(edge + "/first", timeout=5).ok
        asked = time.monotonic()
        flushed = requests.post(edge + FLUSH_PATH, timeout=TOTAL + 5 + 3 * SLACK)
        took = time.monotonic() - asked
        assert flushed.status_code == 200
        assert took < TOTAL + 5 + SLACK, f"the flush trigger took {took:.1f} s"
        assert any(b for b in fast.bodies), "the fast job's batch did not arrive"
        # while the slow job's batches trickle, its lines stay bounded: the oldest are dropped
        for i in range(PENDING + 100):
            requests.get(edge + f"/more-{i}", timeout=5)
        fast_got = time.monotonic()
        requests.post(edge + FLUSH_PATH, timeout=TOTAL + 5 + 3 * SLACK)
        assert time.monotonic() - fast_got < TOTAL + 5 + SLACK
        time.sleep(TOTAL + 1)
        job = api.get_job(jobs[0]["id"]).assert_envelope_ok()
        assert "dropped" in str(job.get("error_message")), job
    finally:
        slow.stop.set()
        for job in jobs:
            api.delete_job(job["id"])
