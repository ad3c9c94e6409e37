"""Placeholder storage engine; replaced by the SQLite + blob-file engine."""

from __future__ import annotations

from pathlib import Path


class Store:
    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root

    def close(self) -> None:
        pass
