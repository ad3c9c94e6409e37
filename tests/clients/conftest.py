"""Real S3 clients against one reference (plain HTTP and its TLS listener)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.reference.conftest import Reference, start_reference

# variables through which a user's machine could change a client's defaults or trust store
CLIENT_ENV = (
    "AWS_CA_BUNDLE",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_REQUEST_CHECKSUM_CALCULATION",
    "AWS_RESPONSE_CHECKSUM_VALIDATION",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
)


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    ref = start_reference(tmp_path_factory.mktemp("clients") / "data")
    yield ref
    ref.stop()


@pytest.fixture(scope="session")
def tls_surface(reference: Reference) -> dict[str, Any]:
    """The S3 API over TLS: endpoint, credentials and `verify` (the certificate's PEM path)."""
    surface: dict[str, Any] | None = reference.ready["surfaces"].get("s3_tls")
    if surface is None:
        pytest.fail("the reference offers no s3_tls surface (is `cryptography` installed?)")
    return surface


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> dict[str, str]:
    """The process environment without AWS client settings; config files point at nothing."""
    for name in CLIENT_ENV:
        monkeypatch.delenv(name, raising=False)
    empty = tmp_path / "empty-aws-config"
    empty.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty))
    return dict(os.environ)


_counter = iter(range(1_000_000))


def fresh_name(tool: str) -> str:
    return f"{tool}-{time.monotonic_ns() % 10**9}-{next(_counter)}"
