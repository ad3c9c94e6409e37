"""SIGTERM and SIGHUP end a run the way Ctrl-C does, so that teardown and the restore run.

Python's default for both is to die on the spot, skipping every `finally`: that is how a
cancelled CI job used to leave a user's zone with the suite's test rules. While the end of a
run (the restore, then the cleanup) runs, the three signals are held back so that one cannot
cut it in half; a signal held back is remembered, not dropped, so a run stopped during its
end still exits as interrupted (before, a SIGHUP that came during the restore was lost and
the run exited 0, as if nobody had asked it to stop).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

GRACEFUL = tuple(
    s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None
)
HELD = (signal.SIGINT, *GRACEFUL)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def install() -> Callable[[], None]:
    """Turn SIGTERM/SIGHUP into KeyboardInterrupt; returns the undo. No-op off the main thread."""
    _received.clear()  # a new run (pytest can run in-process more than once)
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous: dict[int, Any] = {}
    for signum in GRACEFUL:
        if signal.getsignal(signum) in (signal.SIG_DFL, None):
            previous[signum] = signal.signal(signum, _interrupt)

    def undo() -> None:
        for signum, handler in previous.items():
            if signal.getsignal(signum) is _interrupt:
                signal.signal(signum, handler)

    return undo


_received: list[int] = []  # signals held back since the process started, in arrival order


def _remember(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)


def held_back() -> list[str]:
    """The names of the signals that arrived inside `held()` blocks."""
    return [signal.Signals(signum).name for signum in _received]


@contextmanager
def held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP back inside the block and remember them (`held_back`).

    Main thread only (else unchanged); nested blocks keep holding until the outer one ends.
    A signal the process ignores (SIG_IGN: `nohup`, a shell's `cmd &`) stays ignored, as
    `install` leaves it: a hangup nohup was asked to ignore must not end the run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {
        signum: signal.signal(signum, _remember)
        for signum in HELD
        if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
