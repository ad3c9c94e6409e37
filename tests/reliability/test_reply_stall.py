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
    received = len(sock.recv(1024))
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


def test_a_slow_steady_reader_is_not_cut(ref: RefProcess) -> None:
    """A client that reads all the time, only slowly (32 KiB/s here, for four timeouts), is no
    stalled client: the timer is about progress, not about draining a whole 256 KiB piece
    within the timeout (nginx's send_timeout: between two successive writes). Before, the
    piece in the transport's buffer had to drain below its low-water mark within
    `send_idle_timeout_s`: a reader slower than about 256 KiB per timeout (8.5 KiB/s at the
    default 30 s) was cut while reading."""
    prepared = ref.wire().prepare("GET", BUCKET, "large")
    sock = connect(prepared.url)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    sock.sendall(request_head("GET", prepared.url, dict(prepared.headers)))
    sock.settimeout(30)
    received, deadline = 0, time.monotonic() + STALL * 4
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(8192)
            assert chunk, f"cut after {received} bytes while reading 32 KiB/s"
            received += len(chunk)
            time.sleep(0.25)
        while received < SIZE:  # then fast: the whole reply must still come
            chunk = sock.recv(1 << 20)
            assert chunk, f"cut after {received} bytes of {SIZE} (read at 32 KiB/s before)"
            received += len(chunk)
    finally:
        sock.close()


def test_a_connection_whose_reply_once_waited_stays_open(ref: RefProcess) -> None:
    """A reply that filled the send buffer and then drained leaves no timer behind: the
    keep-alive connection still answers a request made well after `send_idle_timeout_s`.
    A timer left armed (its cancel skipped) aborted the idle connection two timeouts later,
    and the client's next request on it got no answer (ledgered guarded_http mutants)."""
    prepared = ref.wire().prepare("GET", BUCKET, "large")
    sock = connect(prepared.url)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    sock.settimeout(30)
    try:
        sock.sendall(request_head("GET", prepared.url, dict(prepared.headers)))
        raw = sock.recv(1024)
        time.sleep(0.5)  # the reply fills both buffers: the server pauses writing
        while b"\r\n\r\n" not in raw:
            raw += sock.recv(1024)
        head, _, body = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head[:200]
        received = len(body)
        while received < SIZE:
            chunk = sock.recv(1 << 20)
            assert chunk, f"cut after {received} bytes of {SIZE}"
            received += len(chunk)
        time.sleep(STALL * 3)  # idle, past two timeouts
        again = ref.wire().prepare("HEAD", BUCKET, "large")
        sock.sendall(request_head("HEAD", again.url, dict(again.headers)))
        answer = sock.recv(1024)
    except ConnectionResetError:
        answer = b""
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 200"), f"the idle connection answered {answer[:80]!r}"
