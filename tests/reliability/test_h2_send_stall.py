"""An HTTP/2 download its client never reads is dropped after `send_idle_timeout_s` (no progress).

The uvicorn listeners drop a reply whose client took nothing for `send_idle_timeout_s`
(test_reply_stall.py). On the TLS listener (hypercorn) a stream whose client kept its
flow-control window shut waited for ever: the app held its in-flight slot and the connection
stayed open. Now the stream's app gives up once the client took nothing of its buffer for the
timeout, and the connection, idle then, closes after hypercorn's keep-alive timeout.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import h2.events
import pytest
from reliability.offload_probe import MIB, public_domain
from reliability.refproc import RefProcess, running_clean
from reliability.test_h2_backpressure import _open

pytestmark = pytest.mark.slow
BUCKET = "h2-send-stall"
STALL, KEEP_ALIVE = 2, 2  # seconds: send_idle_timeout_s, header_timeout_s (hypercorn's keep-alive)


@pytest.fixture
def ref(tmp_path: Path) -> Iterator[RefProcess]:
    """A reference with short timeouts; its log holds no traceback afterwards (a dropped reply
    is not an application error)."""
    yield from running_clean(tmp_path, send_idle_timeout_s=STALL, header_timeout_s=KEEP_ALIVE)


def test_unread_h2_download_is_dropped(ref: RefProcess) -> None:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "big", body=b"q" * (4 * MIB)).status == 200
    sock, _ = _open(ref, public_domain(ref, BUCKET), streams=4)
    started, closed = time.monotonic(), None
    sock.settimeout(1.0)
    try:
        while time.monotonic() - started < 6 * (STALL + KEEP_ALIVE):
            try:
                if not sock.recv(65536):  # never acknowledged: windows stay at 64 KiB
                    closed = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except OSError:
                closed = time.monotonic() - started
                break
    finally:
        with contextlib.suppress(OSError):
            sock.close()
    assert closed is not None, "the unread HTTP/2 downloads still hold their connection"
    assert closed >= STALL, f"dropped after {closed:.1f} s, before any timeout ran out"
    # the listener still serves a reader
    assert wire.request("GET", BUCKET, "big").status == 200


def test_slow_h2_reader_is_served(ref: RefProcess) -> None:
    """A client that keeps taking bytes, slower than the app writes, keeps its stream: the
    timeout is about progress (nginx's send_timeout), not about draining a whole chunk."""
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    assert wire.request("PUT", BUCKET, "big", body=b"q" * (4 * MIB)).status == 200
    sock, conn = _open(ref, public_domain(ref, BUCKET), streams=1)
    got, ended, reset = 0, False, False
    sock.settimeout(0.5)
    started = time.monotonic()
    try:
        while time.monotonic() - started < 4 * STALL + KEEP_ALIVE and not (ended or reset):
            with contextlib.suppress(TimeoutError):
                data = sock.recv(65536)
                assert data, f"connection closed after {got} bytes taken steadily"
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.DataReceived):
                        got += event.flow_controlled_length
                    ended |= isinstance(event, h2.events.StreamEnded)
                    reset |= isinstance(event, h2.events.StreamReset)
            # 8 KiB a second, acknowledged: far slower than a 256 KiB chunk drains at speed
            conn.increment_flow_control_window(8192)
            conn.increment_flow_control_window(8192, stream_id=1)
            sock.sendall(conn.data_to_send())
            time.sleep(0.5)
    finally:
        with contextlib.suppress(OSError):
            sock.close()
    assert not reset, f"stream reset after {got} bytes"
    assert got > 64 * 1024 + 8192 * 4, f"only {got} bytes in {4 * STALL + KEEP_ALIVE} s"
