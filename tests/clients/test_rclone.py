"""rclone (Debian package `rclone`) against the reference's plain-HTTP S3 listener.

The remote `ref` is configured through environment variables only (`RCLONE_CONFIG_REF_*`,
provider `Other`), as a user would point rclone at any S3-compatible endpoint.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import fresh_name
from tests.reference.conftest import Reference

RCLONE = shutil.which("rclone")
TIMEOUT = 120
pytestmark = pytest.mark.skipif(RCLONE is None, reason="rclone is not installed (apt rclone)")


class Rclone:
    def __init__(self, surface: dict[str, Any], env: dict[str, str], config: Path) -> None:
        config.write_text("")  # no user configuration: the remote lives in the environment
        self.env = {
            **env,
            "RCLONE_CONFIG": str(config),
            "RCLONE_CONFIG_REF_TYPE": "s3",
            "RCLONE_CONFIG_REF_PROVIDER": "Other",
            "RCLONE_CONFIG_REF_ENV_AUTH": "false",
            "RCLONE_CONFIG_REF_ACCESS_KEY_ID": surface["access_key_id"],
            "RCLONE_CONFIG_REF_SECRET_ACCESS_KEY": surface["secret_access_key"],
            "RCLONE_CONFIG_REF_ENDPOINT": surface["endpoint"],
            "RCLONE_CONFIG_REF_REGION": surface.get("region", "auto"),
            "RCLONE_CONFIG_REF_FORCE_PATH_STYLE": "true",
        }
        for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
            self.env.pop(name, None)  # plain HTTP: no trust store involved

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        assert RCLONE is not None
        command = [RCLONE, "--retries", "1", "--low-level-retries", "1", *args]
        result = subprocess.run(
            command, env=self.env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
        if check and result.returncode != 0:
            pytest.fail(
                f"rclone {' '.join(args)} exited {result.returncode}: {result.stderr[-2000:]}"
            )
        return result


@pytest.fixture
def rclone(reference: Reference, clean_env: dict[str, str], tmp_path: Path) -> Rclone:
    return Rclone(reference.s3, clean_env, tmp_path / "rclone.conf")


@pytest.fixture
def bucket(rclone: Rclone) -> Any:
    name = fresh_name("rclone")
    rclone.run("mkdir", f"ref:{name}")
    yield name
    rclone.run("purge", f"ref:{name}", check=False)


def _make_tree(root: Path) -> None:
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\n")
    (root / "sub" / "b.bin").write_bytes(os.urandom(70_000))
    (root / "sub" / "deeper" / "c.txt").write_text("gamma " * 2000)


def test_copy_and_check(rclone: Rclone, bucket: str, tmp_path: Path) -> None:
    """`rclone copy` uploads a tree, `check` finds it identical, `lsf` lists it."""
    local = tmp_path / "tree"
    _make_tree(local)
    rclone.run("copy", str(local), f"ref:{bucket}/tree")
    rclone.run("check", str(local), f"ref:{bucket}/tree")
    listed = rclone.run("lsf", "-R", "--files-only", f"ref:{bucket}/tree").stdout.split()
    assert sorted(listed) == ["a.txt", "sub/b.bin", "sub/deeper/c.txt"]
    back = tmp_path / "back"
    rclone.run("copy", f"ref:{bucket}/tree", str(back))
    assert (back / "sub" / "b.bin").read_bytes() == (local / "sub" / "b.bin").read_bytes()


def test_sync_deletes_and_updates(rclone: Rclone, bucket: str, tmp_path: Path) -> None:
    """`rclone sync` mirrors changes (a new file, a changed file, a deleted file)."""
    local = tmp_path / "tree"
    _make_tree(local)
    rclone.run("sync", str(local), f"ref:{bucket}/tree")
    (local / "a.txt").write_text("alpha, changed\n")
    (local / "sub" / "deeper" / "c.txt").unlink()
    (local / "new.txt").write_text("new")
    rclone.run("sync", str(local), f"ref:{bucket}/tree")
    rclone.run("check", str(local), f"ref:{bucket}/tree")
    assert rclone.run("cat", f"ref:{bucket}/tree/a.txt").stdout == "alpha, changed\n"
    listed = rclone.run("lsf", "-R", "--files-only", f"ref:{bucket}/tree").stdout.split()
    assert "sub/deeper/c.txt" not in listed


def test_large_file_multipart(rclone: Rclone, bucket: str, tmp_path: Path) -> None:
    """A file over rclone's upload cutoff goes up in parts and checks out by content."""
    local = tmp_path / "big"
    local.mkdir()
    (local / "big.bin").write_bytes(os.urandom(12 * 1024 * 1024))
    rclone.run(
        "copy", "--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M", str(local), f"ref:{bucket}"
    )
    rclone.run("check", "--download", str(local), f"ref:{bucket}")


def test_delete(rclone: Rclone, bucket: str, tmp_path: Path) -> None:
    """`rclone deletefile` and `delete` remove objects."""
    local = tmp_path / "tree"
    _make_tree(local)
    rclone.run("copy", str(local), f"ref:{bucket}")
    rclone.run("deletefile", f"ref:{bucket}/a.txt")
    rclone.run("delete", f"ref:{bucket}/sub")
    assert rclone.run("lsf", "-R", "--files-only", f"ref:{bucket}").stdout.split() == []
