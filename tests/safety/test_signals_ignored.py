"""A signal the process was told to ignore stays ignored while the end of a run holds signals.

`nohup` (SIGHUP) and a non-interactive shell's `cmd &` (SIGINT) start a process with the
signal set to SIG_IGN; `signals.install` already leaves such a signal alone. `signals.held()`
replaced SIG_IGN by its recorder, so a hangup that nohup was there to ignore, arriving during
the restore, ended a nohup'd run as interrupted (exit 2).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from conformance.safety import signals

SIGHUP = getattr(signal, "SIGHUP", None)
pytestmark = pytest.mark.skipif(SIGHUP is None, reason="no SIGHUP on this platform")


@pytest.fixture
def hup_ignored() -> Iterator[None]:
    previous = signal.signal(SIGHUP, signal.SIG_IGN)
    signals._received.clear()
    try:
        yield
    finally:
        signal.signal(SIGHUP, previous)
        signals._received.clear()


def test_held_keeps_an_ignored_signal_ignored(hup_ignored: None) -> None:
    with signals.held():
        os.kill(os.getpid(), SIGHUP)
    assert signals.held_back() == []
    assert signal.getsignal(SIGHUP) is signal.SIG_IGN


def test_held_still_remembers_a_signal_that_is_not_ignored() -> None:
    signals._received.clear()
    previous = signal.signal(SIGHUP, signal.SIG_DFL)
    try:
        with signals.held():
            os.kill(os.getpid(), SIGHUP)
        assert signals.held_back() == ["SIGHUP"]
    finally:
        signal.signal(SIGHUP, previous)
        signals._received.clear()
