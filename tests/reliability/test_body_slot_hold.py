"""A body that sent fast and then trickles cannot keep its body slot (guarded_http.py).

Only `max_body_streams` bodies per process are read past their first 64 KiB at once; the
others wait, unread, and get 503 after `body_idle_timeout_s` without a slot. The minimum rate
was an average over the whole body: a client that sent 300 KB at once banked 300 s of credit
at 1 KiB/s and then held its slot with a byte every few seconds, so `max_body_streams` such
clients shut every other upload out (503) for minutes (hostile round: 32 slow uploaders). Now
each window of `body_idle_timeout_s` after the first must carry the minimum rate too.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator

import pytest
from reliability.rawhttp import connect, read_until_closed, request_head, statuses
from reliability.refproc import RefProcess, checked_reference

pytestmark = pytest.mark.slow  # waits out the reference's (shortened) body timeout

BODY_TIMEOUT = 3.0  # body_idle_timeout_s of this module's reference (default 30)
SLOTS = 2  # max_body_streams (default 32)
SLACK = 6.0  # a busy machine's margin beyond a timeout
BUCKET = "slot-hold"
FRONT = 300_000  # sent at once: 293 s of credit at the 1 KiB/s minimum averaged
DECLARED = FRONT + 10_000


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    profile = {"body_idle_timeout_s": BODY_TIMEOUT, "max_body_streams": SLOTS}
    yield from checked_reference(tmp_path_factory, "slot-hold", profile, BUCKET)


def _banker(ref: RefProcess, key: str) -> socket.socket:
    """A PUT that sends FRONT bytes at once (taking a body slot), then nothing yet."""
    prepared = ref.wire().prepare("PUT", BUCKET, key, payload_hash="UNSIGNED-PAYLOAD",
                                  headers={"Content-Length": str(DECLARED)})  # fmt: skip
    sock = connect(prepared.url)
    sock.sendall(request_head("PUT", prepared.url, dict(prepared.headers)) + b"b" * FRONT)
    return sock


def _trickle_until_answered(socks: list[socket.socket], until: float) -> list[bytes | None]:
    """A byte a second on each socket (well within the idle limit) until the server answers
    it; each answer read whole (None: still unanswered at `until`)."""
    answers: list[bytes | None] = [None] * len(socks)
    while None in answers and time.monotonic() < until:
        for index, sock in enumerate(socks):
            if answers[index] is not None:
                continue
            if select.select([sock], [], [], 0)[0]:  # answered: read it, send no more
                answers[index] = read_until_closed(sock, time.monotonic() + 2.0)[0]
                continue
            with contextlib.suppress(OSError):
                sock.sendall(b"t")
        time.sleep(1.0)
    return answers


def test_banked_credit_does_not_keep_a_body_slot(ref: RefProcess) -> None:
    """Two bodies take both slots with 300 KB, then trickle a byte a second: each is answered
    408 and closed within two body timeouts (not after ~5 min of credit), and a PUT that needs
    a slot afterwards is stored."""
    socks = [_banker(ref, f"banker-{i}") for i in range(SLOTS)]
    started = time.monotonic()
    try:
        answers = _trickle_until_answered(socks, started + 2 * BODY_TIMEOUT + SLACK)
    finally:
        for sock in socks:
            sock.close()
    elapsed = time.monotonic() - started
    for raw in answers:
        assert raw is not None, f"a trickling body kept its slot for {elapsed:.0f} s"
        assert statuses(raw) == [408] and b"bytes/s" in raw, raw[:300]
    reply = ref.wire().request("PUT", BUCKET, "after", body=b"a" * 200_000)
    assert reply.status == 200, reply.describe()


def test_steady_slow_body_keeps_its_slot(ref: RefProcess) -> None:
    """4 KiB/s for 8 s (every window above the minimum rate): stored, not cut off."""
    total = 4096 * 8
    prepared = ref.wire().prepare("PUT", BUCKET, "steady", payload_hash="UNSIGNED-PAYLOAD",
                                  headers={"Content-Length": str(70_000 + total)})  # fmt: skip
    sock = connect(prepared.url)
    try:
        sock.sendall(request_head("PUT", prepared.url, dict(prepared.headers)) + b"s" * 70_000)
        for _ in range(32):
            sock.sendall(b"s" * 1024)
            time.sleep(0.25)
        raw, _ = read_until_closed(sock, time.monotonic() + BODY_TIMEOUT + SLACK)
    finally:
        sock.close()
    assert statuses(raw)[:1] == [200], raw[:300]
