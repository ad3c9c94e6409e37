"""Slow honest uploaders from one client cannot take every body slot (body_guard.py).

Only `max_body_streams` bodies per process are read past their first 64 KiB at once. Before,
any body could take any free slot: `max_body_streams` uploads that each kept just above the
minimum rate (honest, never cut off) held every slot, and every other client's upload waited
`body_idle_timeout_s` for one and got 503. Now one client (peer address) holds at most
`max_body_streams_per_client` slots; its further bodies wait behind its own, not timed out
while that client's share is busy, and another client's body takes a free slot at once.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from reliability.rawhttp import connect, request_head, statuses
from reliability.refproc import RefProcess, checked_reference

pytestmark = pytest.mark.slow  # slow uploads outlast the reference's (shortened) body timeout

BODY_TIMEOUT = 3.0  # body_idle_timeout_s of this module's reference (default 30)
SLOTS = 16  # max_body_streams (default 32); max_body_streams_per_client stays at its default, 8
SLOW = SLOTS  # slow uploads from one client: as many as there are slots
BUCKET = "slot-fair"
FRONT = 70_000  # sent at once: past the 64 KiB a body reads without a slot
TRICKLE = 512  # bytes per slow step
STEP = 0.2  # seconds between steps: 2.5 KiB/s, above the 1 KiB/s minimum
STEPS = int((BODY_TIMEOUT + 3.0) / STEP)  # trickling outlasts a slot wait by seconds
SLOW_SIZE = FRONT + TRICKLE * STEPS
FAST_SIZE = 300_000
OTHER_CLIENT = "127.0.0.2"  # another loopback address: another peer for the server
ANSWER_WAIT = 20.0  # a busy machine's bound on an answer (a hang fails, never blocks)


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefProcess]:
    profile = {"body_idle_timeout_s": BODY_TIMEOUT, "max_body_streams": SLOTS}
    yield from checked_reference(tmp_path_factory, "slot-fair", profile, BUCKET)


def _open_put(ref: RefProcess, key: str, size: int, source: str | None = None) -> socket.socket:
    prepared = ref.wire().prepare("PUT", BUCKET, key, payload_hash="UNSIGNED-PAYLOAD",
                                  headers={"Content-Length": str(size)})  # fmt: skip
    sock = connect(prepared.url, source=source)
    sock.sendall(request_head("PUT", prepared.url, dict(prepared.headers)))
    return sock


def _fast_upload(ref: RefProcess, answer: list[bytes]) -> None:
    """Another client's PUT, its whole body sent at once; its answer appended to `answer`."""
    sock = _open_put(ref, "fast", FAST_SIZE, source=OTHER_CLIENT)
    try:
        sock.sendall(b"f" * FAST_SIZE)
        answer.append(_first_answer(sock, time.monotonic() + ANSWER_WAIT))
    finally:
        sock.close()


def _first_answer(sock: socket.socket, deadline: float) -> bytes:
    """Bytes until one whole answer head arrived (keep-alive: the server does not close)."""
    data = b""
    while b"\r\n\r\n" not in data and time.monotonic() < deadline:
        if select.select([sock], [], [], 0.2)[0]:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data


def test_slow_uploads_of_one_client_leave_slots_for_another(ref: RefProcess) -> None:
    """SLOTS uploads from one client at 2.5 KiB/s (past their first 64 KiB, so each wants a
    slot) while another client PUTs 300 KB at once: the other client's PUT is stored (before:
    503 after waiting BODY_TIMEOUT for a slot), and every slow upload is stored too, the ones
    that waited behind their own client's included; every object reads back whole."""
    slow = [_open_put(ref, f"slow-{i}", SLOW_SIZE) for i in range(SLOW)]
    fast_answer: list[bytes] = []
    fast = threading.Thread(target=_fast_upload, args=(ref, fast_answer), daemon=True)
    try:
        for sock in slow:
            sock.sendall(b"s" * FRONT)
        time.sleep(0.5)  # the server reads the fronts: the slow bodies ask for their slots
        fast.start()
        for _ in range(STEPS):
            for sock in slow:
                sock.sendall(b"s" * TRICKLE)
            time.sleep(STEP)
        deadline = time.monotonic() + ANSWER_WAIT
        slow_answers = [_first_answer(sock, deadline) for sock in slow]
        fast.join(ANSWER_WAIT)
    finally:
        for sock in slow:
            sock.close()
    assert fast_answer, "the other client's PUT got no answer"
    assert statuses(fast_answer[0])[:1] == [200], fast_answer[0][:300]
    for index, raw in enumerate(slow_answers):
        assert statuses(raw)[:1] == [200], f"slow-{index}: {raw[:300]!r}"
    wire = ref.wire()
    for key, size in [("fast", FAST_SIZE)] + [(f"slow-{i}", SLOW_SIZE) for i in range(SLOW)]:
        reply = wire.request("GET", BUCKET, key)
        assert reply.status == 200 and len(reply.body) == size, (key, reply.describe())
