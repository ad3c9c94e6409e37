"""Dropped large downloads leave no blob open and no traceback, deleted objects included.

A client that closes the connection mid-download cancels the reply while a read may be
running; the reader then raised `BufferError` and kept its file open, so a deleted object's
space was never freed.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conformance.clients.s3_wire import WireClient

SIZE = 24 * 1024 * 1024  # above the direct-read threshold, several read pieces
DROPS = 120
DEADLINE = 90.0


def _launch(tmp_path: Path, log: Path) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    import json

    ready = tmp_path / "ready.json"
    cmd = [sys.executable, "-m", "reference_impl", "--port", "0", "--ready-file", str(ready),
           "--data-dir", str(tmp_path / "data"), "--quiet", "--no-tls"]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(cmd, stderr=sink, stdout=sink)
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert process.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    surface: dict[str, str] = json.loads(ready.read_text())["surfaces"]["s3"]
    return process, surface


def _blob_fds(pid: int, data_dir: Path) -> list[str]:
    """Open descriptors of the server on blob files, deleted ones included."""
    found = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(data_dir)) and "/blobs/" in target:
            found.append(target)
    return found


def _drop_download(wire: WireClient, bucket: str, key: str, keep: int) -> None:
    """Send a signed GET, read `keep` bytes of the body, then reset the connection."""
    prepared = wire.prepare("GET", bucket, key)
    parts = urlsplit(prepared.url)
    sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), 10)
    try:
        head = f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in prepared.headers.items()
        )
        sock.sendall((head + "\r\n").encode("latin-1"))
        got = 0
        while got < keep:
            data = sock.recv(65536)
            if not data:
                break
            if not got:
                assert data.startswith(b"HTTP/1.1 200"), data[:300]
            got += len(data)
    finally:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()


@pytest.mark.slow
def test_dropped_downloads_release_their_blobs(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    process, surface = _launch(tmp_path, log)
    try:
        wire = WireClient(surface["endpoint"], surface["access_key_id"],
                          surface["secret_access_key"])  # fmt: skip
        wire.create_bucket("drops").assert_ok()
        body = os.urandom(SIZE)
        keys = [f"k{i}" for i in range(3)]
        for key in keys:
            wire.put_object("drops", key, body).assert_ok()
        started = time.monotonic()
        for turn in range(DROPS):
            if time.monotonic() - started > DEADLINE:
                break
            key = keys[turn % len(keys)]
            _drop_download(wire, "drops", key, keep=(turn % 7 + 1) * 150_000)
            if turn % 10 == 9:  # the object goes away while a reply may still hold it
                wire.request("DELETE", "drops", key).assert_ok()
                wire.put_object("drops", key, body).assert_ok()
        for key in keys:
            wire.request("DELETE", "drops", key).assert_ok()
        data_dir = tmp_path / "data"
        deadline = time.monotonic() + 10
        while _blob_fds(process.pid, data_dir) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _blob_fds(process.pid, data_dir) == []
    finally:
        process.terminate()
        process.wait(timeout=15)
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and "BufferError" not in text, text[-3000:]
