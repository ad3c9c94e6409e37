"""read_answers (conformance/clients/raw_wire.py) reads the answer shapes a correct HTTP/1.1
server may send (a break helper's findings, 2026-11-29): a 101 is an answer, a body may run to
the close, and a stream of interim answers does not hold the read for ever."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from conformance.clients import raw_wire


def _read(answer: bytes, limit: int = 2) -> list[tuple[int, bytes]]:
    """What read_answers makes of `answer`, written whole and then closed by the server."""
    ours, theirs = socket.socketpair()
    ours.settimeout(2)
    theirs.sendall(answer)
    theirs.close()
    try:
        return [(r.status, r.body) for r in raw_wire.read_answers(ours, "GET", "u", limit, 1.0)]
    finally:
        ours.close()


@pytest.mark.parametrize(
    ("answer", "seen"),
    [
        (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n\x00\x00\x12\x04", [(101, b"")]),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the close", [(200, b"to the close")]),
        (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
         [(200, b"ok")]),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
         b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", [(200, b"ok"), (400, b"")]),
        (b"HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
         [(204, b""), (200, b"x")]),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
         b"2\r\nok\r\n0\r\n\r\n", [(200, b"ok")]),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nshort",
         [(200, b"short")]),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\nab",
         [(200, b"ab")]),
    ],
    ids=["101-is-the-answer", "body-to-the-close", "interim-skipped", "chunked-then-next",
         "no-body-204", "coding-on-two-lines", "huge-length", "huge-chunk"],
)  # fmt: skip
def test_answer_shapes(answer: bytes, seen: list[tuple[int, bytes]]) -> None:
    assert _read(answer) == seen


def test_endless_interim_answers_end_the_read() -> None:
    ours, theirs = socket.socketpair()
    ours.settimeout(2)

    def drip() -> None:
        for _ in range(50):
            try:
                theirs.sendall(b"HTTP/1.1 102 Processing\r\n\r\n")
            except OSError:
                return
            time.sleep(0.02)

    threading.Thread(target=drip, daemon=True).start()
    started = time.monotonic()
    assert raw_wire.read_answers(ours, "GET", "u", 1) == []
    assert time.monotonic() - started < 5
    ours.close()
    theirs.close()
