"""Pending log lines are bounded in bytes, not only in count (issue 26, fresh adversarial pass).

A job kept up to `log_pending_max_lines` (50,000) lines whatever their size: anonymous edge
requests with 12 KB URIs while a collector was slow held ~600 MB per job, then joined and
compressed on the event loop. A job now also keeps at most `log_pending_max_bytes` characters:
the oldest lines past it are dropped and reported like the line bound's.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator

import pytest
import requests
from reliability.refproc import RefProcess, start
from reliability.test_log_delivery_bounded import _Collector, _job

from conformance.clients.rules_api import RulesApiClient

TOTAL = 4.0  # logpush_timeout_s of this module's reference
BUDGET = 100_000  # log_pending_max_bytes of this module's reference
URI_CHARS = 10_000
FLUSH_PATH = "/cdn-cgi/edge-conformance/flush"


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    data = tmp_path_factory.mktemp("pending-bytes") / "data"
    proc = start(data, "--profile", f"logpush_timeout_s={TOTAL}",
                 "--profile", f"log_pending_max_bytes={BUDGET}")  # fmt: skip
    yield proc
    proc.stop()


@pytest.fixture
def collector() -> Iterator[_Collector]:
    server = _Collector()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.stop.set()
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_pending_lines_are_bounded_in_bytes(ref: RefProcess, collector: _Collector) -> None:
    api = RulesApiClient.from_surface(ref.surface("rules_api"))
    edge = str(ref.surface("edge")["url"])
    job = _job(api, collector, "big-lines")
    try:
        collector.slow.set()  # the first batch stays in flight: later lines wait
        collector.bodies.clear()
        assert requests.get(edge + "/first", timeout=5).ok
        deadline = time.monotonic() + 20
        while not collector.bodies and time.monotonic() < deadline:
            time.sleep(0.1)
        assert collector.bodies, "the first batch never reached the collector"
        sent = 60  # 60 lines of ~10 KB: six times the budget
        with requests.Session() as session:
            for i in range(sent):
                path = f"/big-{i:03d}-" + "u" * URI_CHARS
                assert session.get(edge + path, timeout=10).ok
        collector.slow.clear()
        requests.post(edge + FLUSH_PATH, timeout=TOTAL + 20)
        deadline = time.monotonic() + TOTAL + 20
        while len(collector.bodies) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(collector.bodies) >= 2, "the second batch never reached the collector"
        lines = gzip.decompress(collector.bodies[1]).decode().splitlines()
        kept = [line for line in lines if "/big-" in line]
        assert kept, lines[:3]
        assert sum(len(line) for line in kept) <= BUDGET + URI_CHARS + 200, len(kept)
        assert len(kept) < sent and f"/big-{sent - 1:03d}-" in kept[-1]  # the newest are kept
        time.sleep(0.5)
        status = api.get_job(job["id"]).assert_envelope_ok()
        assert "dropped" in str(status.get("error_message")), status
    finally:
        collector.stop.set()
        api.delete_job(job["id"])
