"""Migration fetches run on their own bounded pool: a slow source stalls no surface (issue 26).

On main every fetch from the migration source ran on the event loop's default executor (6
threads on 2 cores); eight GETs of missing keys with a slow source took them all, and the
gateway, whose chain calls run there too, waited as long as the source did.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from reliability.offload_probe import rpc_latency
from reliability.refproc import RefProcess

from conformance.clients.mgmt import MgmtClient

pytestmark = pytest.mark.slow
BUCKET = "offload-migration"
DELAY = 6.0  # seconds the source takes to answer anything
MISSES = 8
NO_SUCH_KEY = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code>'
    b"<Message>The specified key does not exist.</Message></Error>"
)


class SlowSource(BaseHTTPRequestHandler):
    """An S3 source that knows no key and takes DELAY seconds to say so."""

    def _answer(self) -> None:
        time.sleep(DELAY)
        self.send_response(404)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(NO_SUCH_KEY)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(NO_SUCH_KEY)

    do_GET = do_HEAD = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def source() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowSource)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_slow_source_misses_leave_the_gateway_free(ref: RefProcess, source: str) -> None:
    """Eight GETs of missing keys wait on the slow source; a JSON-RPC call sent meanwhile
    answers within a second (on main: after the source, ~6 s)."""
    wire = ref.wire(timeout=(10.0, 60.0))
    assert wire.request("PUT", BUCKET).status == 200
    config = {
        "source": {"provider": "aws", "bucket": "legacy", "region": "us-east-1",
                   "accessKeyId": "k", "secretAccessKey": "s", "endpoint": source},
        "destination": {"provider": "r2", "accessKeyId": "d", "secretAccessKey": "d"},
    }  # fmt: skip
    MgmtClient.from_surface(ref.surface("mgmt")).put_sippy(BUCKET, config).assert_envelope_ok()
    rpc_latency(ref)  # the first call starts the embedded chain (seconds): not a stall

    def miss(index: int) -> int:
        return int(wire.request("GET", BUCKET, f"missing-{index}").status)

    with ThreadPoolExecutor(MISSES) as pool:
        misses = [pool.submit(miss, i) for i in range(MISSES)]
        time.sleep(1.5)  # every miss is waiting on the source by now
        during = rpc_latency(ref)
        statuses = [f.result(timeout=120) for f in misses]
    assert statuses == [404] * MISSES  # the source has none of them
    assert during < 1.0, f"JSON-RPC took {during:.2f} s while misses waited on the source"
