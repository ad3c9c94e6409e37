"""Buckets and objects survive a restart on the same data directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.slow  # >3 s on its own: out of the fast tier (docs/testing.md)
def test_data_survives_restart(
    launch: Callable[..., Any], make_boto: Callable[..., Any], tmp_path: Path
) -> None:
    data_dir = tmp_path / "persist"
    first = launch(data_dir=data_dir)
    s3 = make_boto(first.s3)
    s3.create_bucket(Bucket="survivor")
    s3.put_object(Bucket="survivor", Key="dir/kept", Body=b"still here", Metadata={"a": "b"})
    s3.put_object(Bucket="survivor", Key="gone", Body=b"x")
    s3.delete_object(Bucket="survivor", Key="gone")
    first.stop()

    second = launch(data_dir=data_dir)
    s3 = make_boto(second.s3)
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["survivor"]
    got = s3.get_object(Bucket="survivor", Key="dir/kept")
    assert got["Body"].read() == b"still here"
    assert got["Metadata"] == {"a": "b"}
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="survivor").get("Contents", [])]
    assert keys == ["dir/kept"]
