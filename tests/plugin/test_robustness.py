"""Suite robustness: a target that hangs, resets connections or answers garbage.

A nightly run against a broken endpoint must still finish, say ERROR (not FAIL, not a crash)
with a message for the affected rules, and write its results; otherwise the operator learns
nothing from the night. The hostile targets are tiny loopback servers in this process.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

OK_BODY = b'{"jsonrpc":"2.0","id":1,"result":"0xaa36a7"}'
OK_REPLY = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(OK_BODY), OK_BODY)
)
GARBAGE = b"\x00\xffNOT HTTP AT ALL\r\n\r\n\x17\x03\x03garbage"
CLIENT_TIMEOUT_S = 1.0
TESTS = """
import pytest

@pytest.mark.rule("gateway.chain.id")
@pytest.mark.parametrize("n", [1, 2])
def test_chain_id(gateway, n):
    reply = gateway.call("sepolia", "eth_chainId", [])
    assert reply.status == 200
"""


class HostileServer:
    """Answers the first connection properly (the pre-flight), then misbehaves by `mode`."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        served = 0
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            served += 1
            conn.settimeout(2)
            with contextlib.suppress(OSError):
                conn.recv(65536)
            if served == 1:
                conn.sendall(OK_REPLY)
                conn.close()
            elif self.mode == "hang":
                self.held.append(conn)  # accepted, never answered
            elif self.mode == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()
            else:
                conn.sendall(GARBAGE)
                conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        for conn in self.held:
            conn.close()
        self.sock.close()


@pytest.fixture(params=[pytest.param("hang", marks=pytest.mark.slow), "reset", "garbage"])
def hostile(request: pytest.FixtureRequest) -> Iterator[HostileServer]:
    server = HostileServer(request.param)
    yield server
    server.close()


def test_run_against_a_hostile_target_records_error_and_writes_results(
    suite: pytest.Pytester, hostile: HostileServer, tmp_path: Path
) -> None:
    suite.makefile(
        ".toml",
        conformance=(
            "[targets.hostile.gateway]\n"
            f'url = "http://127.0.0.1:{hostile.port}"\n'
            f"timeout = {CLIENT_TIMEOUT_S}\n"
        ),
    )
    suite.makepyfile(TESTS)
    results = tmp_path / "results.json"
    started = time.monotonic()
    run = suite.runpytest("--target", "hostile", "--results", str(results), "-p", "no:randomly")
    assert time.monotonic() - started < 60, "the run did not finish in bounded time"
    assert run.ret != 0
    document = json.loads(results.read_text())
    cases = [c for c in document["cases"] if c["rule_id"] == "gateway.chain.id"]
    assert len(cases) == 2, cases
    for case in cases:
        assert case["status"] == "ERROR", case
        assert case["message"], "an ERROR must say what happened"
    rule = next(r for r in document["rules"] if r["id"] == "gateway.chain.id")
    assert rule["status"] == "ERROR"
