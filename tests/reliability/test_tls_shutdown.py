"""The reference stops promptly while clients of its TLS listeners are still connected.

A TLS close waits for the client's close_notify, up to the loop's ssl_shutdown_timeout (30 s),
and both uvicorn (S3 over TLS) and hypercorn (the public TLS listener) wait at shutdown for
every connection to be gone: one idle client, or one that sent half a request head, held a
SIGTERM for 30 s (`RefProcess.stop` then sent SIGKILL after 10 s). Now such connections are
aborted at shutdown (`guarded_http.GuardedHttpTools.shutdown`, `tls_send.SendTimedTCPServer`).
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from reliability.refproc import assert_no_traceback, start

# (surface, ALPN, what the client sends and then holds)
CLIENTS = [
    ("public_tls", "http/1.1", b"GET /x HTTP/1.1\r\n"),
    ("public_tls", "h2", b"PRI * HTTP/2.0"),
    ("s3_tls", "http/1.1", b""),
]
PROMPT_S = 6.0  # the shutdown's own work takes ~1 s; 30 s when a connection held it


@pytest.mark.parametrize("surface,alpn,sent", CLIENTS)
def test_stop_with_an_open_tls_connection_is_prompt(
    tmp_path: Path, surface: str, alpn: str, sent: bytes
) -> None:
    log = tmp_path / "reference.stderr"
    ref = start(tmp_path / "data", log=log)
    sock = None
    try:
        found = ref.surface(surface)
        parts = urlsplit(found.get("url") or found["endpoint"])
        context = ssl.create_default_context(cafile=found["verify"])
        context.check_hostname = False
        context.set_alpn_protocols([alpn])
        raw = socket.create_connection((parts.hostname, parts.port), timeout=10)
        sock = context.wrap_socket(raw, server_hostname="tls-shutdown.example.com")
        sock.sendall(sent)
        time.sleep(0.2)
        started = time.monotonic()
        ref.process.terminate()
        with contextlib.suppress(Exception):
            ref.process.wait(timeout=PROMPT_S)
        took = time.monotonic() - started
    finally:
        ref.stop()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()
    assert took < PROMPT_S, f"SIGTERM took {took:.1f} s with one open {surface} connection"
    assert ref.process.returncode == 0, f"the reference exited {ref.process.returncode}"
    assert_no_traceback(log)
