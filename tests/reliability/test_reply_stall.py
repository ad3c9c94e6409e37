"""A reply the client stops reading is dropped after `send_idle_timeout_s`.

Before, nothing timed the sending side: a GET of a large object whose client never read held
its connection, its request task and the open blob for ever (checked: after a 40 s pause the
reply simply went on). A listener takes `max_connections` (1,024) at once, so that many
unread downloads, anonymous on the public listener, shut every other client out for good.
Now a reply that makes no progress (the transport's buffer stays full) for the timeout is
aborted; a client that keeps reading, however slowly it began, is served whole.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from reliability.rawhttp import connect, request_head
from reliability.refproc import RefProcess, checked_reference

STALL = 3.0  # send_idle_timeout_s of this module's reference (default 30)
BUCKET = "reply-stall"
SIZE = 16 * 1024 * 1024  # far more than the socket buffers of both ends hold


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    profile = {"send_idle_timeout_s": STALL}
    for proc in checked_reference(tmp_path_factory, "reply-stall", profile, BUCKET):
        proc.wire().put_object(BUCKET, "large", b"x" * SIZE).assert_ok()
        yield proc


def _download(ref: RefProcess, pause: float) -> tuple[int, bool]:
    """A GET that reads its first bytes, pauses, then reads on: (bytes, closed before all)."""
    prepared = ref.wire().prepare("GET", BUCKET, "large")
    sock = connect(prepared.url)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    sock.sendall(request_head("GET", prepared.url, dict(prepared.headers)))
    received = len(sock.recv(4096))
    time.sleep(pause)
    sock.settimeout(30)
    try:
        while received < SIZE:  # the head's bytes count too: stop once the body could be in
            chunk = sock.recv(1 << 20)
            if not chunk:
                return received, True
            received += len(chunk)
    finally:
        sock.close()
    return received, False


def test_an_unread_reply_is_dropped(ref: RefProcess) -> None:
    received, closed = _download(ref, STALL * 3)
    assert closed and received < SIZE, f"{received} bytes of {SIZE}, the reply went on"


def test_a_reader_that_keeps_reading_gets_it_all(ref: RefProcess) -> None:
    received, closed = _download(ref, 0.3)
    assert not closed and received >= SIZE
