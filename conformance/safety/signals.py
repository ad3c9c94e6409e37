"""SIGTERM and SIGHUP end a run the way Ctrl-C does, so that teardown and the restore run.

Python's default for both is to die on the spot, skipping every `finally`: that is how a
cancelled CI job used to leave a user's zone with the suite's test rules. While the restore
itself runs, the three signals are held back so that a second one cannot cut it in half.
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


@contextmanager
def held() -> Iterator[None]:
    """Ignore SIGINT/SIGTERM/SIGHUP inside the block (main thread only; else unchanged)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in HELD}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
