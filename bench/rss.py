"""Peak RSS of a server's process tree, sampled from a background thread.

Peers such as radosgw are several processes (monitor, OSD, gateway) under one start script, so
the sample is the sum over the pid and all its descendants.
"""

from __future__ import annotations

import threading

import psutil


def tree_rss(pid: int) -> int:
    """Resident bytes of pid and every descendant; 0 when it is gone."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total


class PeakRss:
    """Samples tree_rss(pid) every `interval` seconds; `peak` resets with `reset()`."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid = pid
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, tree_rss(self.pid))

    def reset(self) -> int:
        """Start a new window at the current RSS; returns that RSS."""
        now = tree_rss(self.pid)
        self.peak = now
        return now

    def __enter__(self) -> PeakRss:
        self.reset()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
