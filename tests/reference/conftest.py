"""Project-test fixtures for the reference: a real subprocess, found through its ready file."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from helpers.boto_config import reference_boto_config
from helpers.reference_process import launch_reference, stop_process

from conformance.clients.s3_wire import WireClient

STARTUP_TIMEOUT = 30.0


@dataclass
class Reference:
    process: subprocess.Popen[bytes]
    ready: dict[str, Any]
    data_dir: Path

    @property
    def s3(self) -> dict[str, Any]:
        surface: dict[str, Any] = self.ready["surfaces"]["s3"]
        return surface

    def stop(self) -> None:
        stop_process(self.process)


def start_reference(data_dir: Path, *extra: str) -> Reference:
    """Start `python -m reference_impl` on ephemeral ports and wait for its ready file."""
    process, ready = launch_reference(data_dir, *extra)
    return Reference(process, ready, data_dir)


def boto_client(surface: dict[str, Any], **overrides: Any) -> Any:
    creds = {
        "aws_access_key_id": surface["access_key_id"],
        "aws_secret_access_key": surface["secret_access_key"],
    }
    creds.update(overrides.pop("credentials", {}))
    return boto3.client(
        "s3",
        endpoint_url=surface["endpoint"],
        region_name=overrides.pop("region", surface.get("region", "auto")),
        config=reference_boto_config(read_timeout=60),
        **creds,
    )


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    """One reference for the session (today's behaviour)."""
    ref = start_reference(tmp_path_factory.mktemp("ref") / "data")
    yield ref
    ref.stop()


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Callable[..., Reference]]:
    """Start references of one's own (other profile, restarts); all stopped afterwards."""
    started: list[Reference] = []

    def _launch(*extra: str, data_dir: Path | None = None) -> Reference:
        ref = start_reference(data_dir or tmp_path / "data", *extra)
        started.append(ref)
        return ref

    yield _launch
    for ref in started:
        ref.stop()


@pytest.fixture(scope="module")
def gateway_url(reference: Reference) -> str:
    """The JSON-RPC gateway of the session's reference (a module that needs another behaviour
    date starts its own, as test_gateway_server does)."""
    url: str = reference.ready["surfaces"]["gateway"]["url"]
    return url


@pytest.fixture(scope="session")
def s3(reference: Reference) -> Any:
    return boto_client(reference.s3)


@pytest.fixture(scope="module")
def wire(reference: Reference) -> WireClient:
    """Raw signed S3 requests to the session's reference, one client per module (a module may
    define its own, as test_s3_chunked does per test)."""
    s = reference.s3
    return WireClient(s["endpoint"], s["access_key_id"], s["secret_access_key"])


_counter = iter(range(1_000_000))


@pytest.fixture
def bucket(s3: Any) -> str:
    name = f"proj-{time.monotonic_ns() % 10**9}-{next(_counter)}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture
def make_boto() -> Callable[..., Any]:
    """`make_boto(surface, region=..., credentials=...)`: a boto3 client for a reference."""
    return boto_client
