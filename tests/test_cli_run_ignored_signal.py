"""`conformance run` under `nohup` keeps ignoring SIGHUP instead of passing it on.

The wrapper forwards SIGINT/SIGTERM/SIGHUP to its pytest child, which runs in its own session
and so never sees the terminal's hangup itself. It installed its forwarder even for a signal
the process had been started ignoring, so closing the terminal of a `nohup conformance run`
sent SIGTERM to the suite and interrupted the run nohup was meant to keep alive.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator

import pytest

from conformance.cli_run import call_forwarding_signals

SIGHUP = getattr(signal, "SIGHUP", None)
pytestmark = pytest.mark.skipif(SIGHUP is None, reason="no SIGHUP on this platform")

# the child sends its parent a hangup a while after it starts (the wrapper has long installed
# its handlers by then), then goes on for a while: killed, it would not exit 0
CHILD = (
    "import os, signal, time; time.sleep(1.0); os.kill(os.getppid(), signal.SIGHUP); "
    "time.sleep(2.0)"
)


@pytest.fixture
def hup_ignored() -> Iterator[None]:
    previous = signal.signal(SIGHUP, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(SIGHUP, previous)


def test_an_ignored_hangup_is_not_forwarded(hup_ignored: None) -> None:
    assert call_forwarding_signals([sys.executable, "-c", CHILD]) == 0
    assert signal.getsignal(SIGHUP) is signal.SIG_IGN
