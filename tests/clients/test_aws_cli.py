"""The AWS CLI (v1, PyPI `awscli`) against the reference's TLS listener, configured only by env.

Credentials and the CA bundle come from the environment, the region is `auto`, the endpoint is
given with `--endpoint-url`: how a user points the CLI at the reference.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import fresh_name

TIMEOUT = 120


def _aws_executable() -> str | None:
    beside = Path(sys.executable).parent / "aws"  # the CLI installed in this environment
    return str(beside) if beside.exists() else shutil.which("aws")


AWS = _aws_executable()
pytestmark = [
    pytest.mark.skipif(AWS is None, reason="the AWS CLI is not installed (pip awscli)"),
    pytest.mark.slow,
]


class Cli:
    def __init__(self, surface: dict[str, Any], env: dict[str, str]) -> None:
        self.endpoint = surface["endpoint"]
        self.env = {
            **env,
            "AWS_ACCESS_KEY_ID": surface["access_key_id"],
            "AWS_SECRET_ACCESS_KEY": surface["secret_access_key"],
            "AWS_DEFAULT_REGION": surface["region"],
            "AWS_CA_BUNDLE": surface["verify"],
            "AWS_MAX_ATTEMPTS": "1",
            "AWS_PAGER": "",
        }

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        assert AWS is not None
        command = [AWS, "--endpoint-url", self.endpoint, *args]
        result = subprocess.run(
            command, env=self.env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
        if check and result.returncode != 0:
            pytest.fail(f"{' '.join(args)} exited {result.returncode}: {result.stderr[-2000:]}")
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args, "--output", "json").stdout or "null")


@pytest.fixture
def cli(tls_surface: dict[str, Any], clean_env: dict[str, str]) -> Cli:
    return Cli(tls_surface, clean_env)


@pytest.fixture
def bucket(cli: Cli) -> Any:
    name = fresh_name("awscli")
    cli.run("s3", "mb", f"s3://{name}")
    yield name
    cli.run("s3", "rb", f"s3://{name}", "--force", check=False)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_s3_cp_ls_rm(cli: Cli, bucket: str, tmp_path: Path) -> None:
    """`aws s3 cp` up and down, `ls` shows the object, `rm` removes it."""
    source = tmp_path / "hello.txt"
    source.write_text("hello from the aws cli\n")
    cli.run("s3", "cp", str(source), f"s3://{bucket}/docs/hello.txt")
    listing = cli.run("s3", "ls", f"s3://{bucket}/docs/").stdout
    assert "hello.txt" in listing
    back = tmp_path / "back.txt"
    cli.run("s3", "cp", f"s3://{bucket}/docs/hello.txt", str(back))
    assert back.read_bytes() == source.read_bytes()
    cli.run("s3", "rm", f"s3://{bucket}/docs/hello.txt")
    assert "hello.txt" not in cli.run("s3", "ls", f"s3://{bucket}/docs/", check=False).stdout


def test_s3_sync_both_ways(cli: Cli, bucket: str, tmp_path: Path) -> None:
    """`aws s3 sync` uploads a tree, a second sync is a no-op, and syncing down reproduces it."""
    local = tmp_path / "tree"
    (local / "a" / "b").mkdir(parents=True)
    (local / "top.txt").write_text("top")
    (local / "a" / "one.bin").write_bytes(os.urandom(3000))
    (local / "a" / "b" / "two.txt").write_text("two" * 1000)
    cli.run("s3", "sync", str(local), f"s3://{bucket}/tree")
    again = cli.run("s3", "sync", str(local), f"s3://{bucket}/tree").stdout
    assert "upload:" not in again
    down = tmp_path / "down"
    cli.run("s3", "sync", f"s3://{bucket}/tree", str(down))
    assert _tree(down) == _tree(local)
    cli.run("s3", "rm", f"s3://{bucket}/tree", "--recursive")
    assert cli.json("s3api", "list-objects-v2", "--bucket", bucket).get("KeyCount", 0) == 0


def test_s3_cp_multipart(cli: Cli, bucket: str, tmp_path: Path) -> None:
    """A 12 MiB `aws s3 cp` goes up in parts and comes back identical."""
    source = tmp_path / "big.bin"
    source.write_bytes(os.urandom(12 * 1024 * 1024))
    cli.run("s3", "cp", str(source), f"s3://{bucket}/big.bin")
    head = cli.json("s3api", "head-object", "--bucket", bucket, "--key", "big.bin")
    assert head["ContentLength"] == source.stat().st_size
    assert head["ETag"].strip('"').endswith("-2")
    back = tmp_path / "big-back.bin"
    cli.run("s3", "cp", f"s3://{bucket}/big.bin", str(back))
    assert back.read_bytes() == source.read_bytes()


def test_s3api_object_calls(cli: Cli, bucket: str, tmp_path: Path) -> None:
    """`aws s3api` put-object, head-object, get-object, list-objects-v2, delete-object."""
    body = tmp_path / "body.json"
    body.write_text('{"k": 1}')
    put = cli.json(
        "s3api", "put-object", "--bucket", bucket, "--key", "o.json", "--body", str(body),
        "--content-type", "application/json", "--metadata", "team=edge",
    )  # fmt: skip
    assert put["ETag"]
    head = cli.json("s3api", "head-object", "--bucket", bucket, "--key", "o.json")
    assert head["ContentType"] == "application/json"
    assert head["Metadata"] == {"team": "edge"}
    out = tmp_path / "out.json"
    cli.json("s3api", "get-object", "--bucket", bucket, "--key", "o.json", str(out))
    assert out.read_text() == '{"k": 1}'
    listed = cli.json("s3api", "list-objects-v2", "--bucket", bucket)
    assert [item["Key"] for item in listed["Contents"]] == ["o.json"]
    cli.run("s3api", "delete-object", "--bucket", bucket, "--key", "o.json")


def test_s3api_multipart(cli: Cli, bucket: str, tmp_path: Path) -> None:
    """`aws s3api` create-multipart-upload, upload-part x2, list-parts, complete."""
    first, second = tmp_path / "p1", tmp_path / "p2"
    first.write_bytes(b"1" * 5 * 1024 * 1024)
    second.write_bytes(b"2" * 1000)
    upload = cli.json("s3api", "create-multipart-upload", "--bucket", bucket, "--key", "mp")
    upload_id = upload["UploadId"]
    parts = []
    for number, path in ((1, first), (2, second)):
        part = cli.json(
            "s3api", "upload-part", "--bucket", bucket, "--key", "mp", "--upload-id", upload_id,
            "--part-number", str(number), "--body", str(path),
        )  # fmt: skip
        parts.append({"PartNumber": number, "ETag": part["ETag"]})
    listed = cli.json(
        "s3api", "list-parts", "--bucket", bucket, "--key", "mp", "--upload-id", upload_id
    )
    assert [p["PartNumber"] for p in listed["Parts"]] == [1, 2]
    cli.json(
        "s3api", "complete-multipart-upload", "--bucket", bucket, "--key", "mp",
        "--upload-id", upload_id, "--multipart-upload", json.dumps({"Parts": parts}),
    )  # fmt: skip
    head = cli.json("s3api", "head-object", "--bucket", bucket, "--key", "mp")
    assert head["ContentLength"] == 5 * 1024 * 1024 + 1000
    assert head["ETag"].strip('"').endswith("-2")
