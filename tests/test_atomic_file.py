"""conformance/atomic_file.py: the one write-to-temp-then-rename of the suite."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conformance import atomic_file


def test_writes_replaces_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "results.json"
    assert atomic_file.write_text(target, "one") == target
    atomic_file.write_bytes(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["results.json"]


def test_modes_follow_the_umask_or_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        shared = atomic_file.write_text(tmp_path / "index.html", "x")
        private = atomic_file.write_text(tmp_path / "journal.json", "x", private=True)
    finally:
        os.umask(old)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


def test_a_failed_write_keeps_the_old_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = atomic_file.write_text(tmp_path / "f", "old")

    def fail(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        atomic_file.write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
