"""Reference processes for reliability and security tests: start, SIGKILL, restart, talk to.

Kept apart from tests/reference/conftest.py because these tests kill and restart the reference
on the same data dir and need the raw process, the ready file and hypothesis settings that the
other project tests do not.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3
from helpers.boto_config import reference_boto_config
from helpers.reference_process import launch_reference
from hypothesis import HealthCheck, settings

from conformance.clients.s3_wire import WireClient

STARTUP_TIMEOUT = 30.0
REQUEST_TIMEOUT = (5.0, 20.0)  # connect, read: a hang is a failure, never a stuck run

# Hypothesis: bounded, no example database (never write outside tmp dirs), derandomized in CI.
_COMMON: dict[str, Any] = {
    "database": None,
    "deadline": 10_000,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}
settings.register_profile("ci", max_examples=40, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=60, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def _auth(surface: dict[str, Any]) -> dict[str, str]:
    """The email + key pair both management surfaces of the reference accept."""
    return {"X-Auth-Email": surface["email"], "X-Auth-Key": surface["api_key"]}


@dataclass
class RefProcess:
    process: subprocess.Popen[bytes]
    ready: dict[str, Any]
    data_dir: Path

    def surface(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = self.ready["surfaces"][name]
        return found

    def url(self, listener: str) -> str:
        """The base address of one listener, whichever key its surface uses."""
        surface = self.surface(listener)
        return str(surface.get("endpoint") or surface.get("url") or surface.get("base_url"))

    def zone_api(self) -> dict[str, Any]:
        """The rules API of the reference's zone: `base` (.../zones/<id>) and auth `headers`."""
        api = self.surface("rules_api")
        return {"base": f"{api['base_url']}/zones/{api['zone_id']}", "headers": _auth(api)}

    def account_api(self) -> dict[str, Any]:
        """The storage management API of the account: `base` (.../accounts/<id>), `headers`."""
        api = self.surface("mgmt")
        return {"base": f"{api['base_url']}/accounts/{api['account_id']}", "headers": _auth(api)}

    def public_tls_socket(
        self, domain: str, alpn: list[str] | None = None, rcvbuf: int | None = None
    ) -> ssl.SSLSocket:
        """A TLS connection to the public listener for `domain` (SNI), trusting the reference's
        own CA, offering `alpn`; `rcvbuf` shrinks the receive buffer (a stalled reader's window
        fills fast)."""
        tls = self.surface("public_tls")
        parts = urlsplit(tls["url"])
        context = ssl.create_default_context(cafile=tls["verify"])
        context.check_hostname = False
        if alpn:
            context.set_alpn_protocols(alpn)
        raw = socket.create_connection((parts.hostname, parts.port), timeout=10)
        if rcvbuf is not None:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        return context.wrap_socket(raw, server_hostname=domain)

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, exactly like a crash."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def wire(self, account: str = "first", **options: Any) -> WireClient:
        s3 = self.surface("s3")
        creds = s3 if account == "first" else s3["second_account"]
        return WireClient(
            s3["endpoint"],
            creds["access_key_id"],
            creds["secret_access_key"],
            timeout=options.pop("timeout", REQUEST_TIMEOUT),
            **options,
        )

    def boto(self, **config: Any) -> Any:
        s3 = self.surface("s3")
        return boto3.client(
            "s3",
            endpoint_url=s3["endpoint"],
            region_name="auto",
            aws_access_key_id=s3["access_key_id"],
            aws_secret_access_key=s3["secret_access_key"],
            config=reference_boto_config(read_timeout=20, **config),
        )


def start(data_dir: Path, *extra: str, log: Path | None = None) -> RefProcess:
    """`python -m reference_impl` on ephemeral loopback ports; waits for its ready file.
    With `log`, its stderr is written there (see `assert_no_traceback`)."""
    process, ready = launch_reference(data_dir, *extra, log=log)
    return RefProcess(process, ready, data_dir)


@contextlib.contextmanager
def holding(data_dir: Path, bucket: str, objects: dict[str, bytes]) -> Iterator[RefProcess]:
    """A started reference whose `bucket` holds `objects`; stopped however the block ends."""
    proc = start(data_dir)
    try:
        wire = proc.wire()
        wire.create_bucket(bucket).assert_ok()
        for key, body in objects.items():
            wire.put_object(bucket, key, body).assert_ok()
        yield proc
    finally:
        proc.stop()


def assert_no_traceback(log: Path) -> None:
    """The server's log after hostile input holds no traceback: client input never crashes a
    handler (issue 16); uvicorn logs every exception of an ASGI app with its traceback."""
    text = log.read_text("utf-8", "replace") if log.is_file() else ""
    assert "Traceback" not in text, f"the reference logged a traceback:\n{text[-4000:]}"


def files_outside(root: Path, allowed: Path) -> list[Path]:
    """Files under `root` that are not under `allowed` (writes escaping the data dir)."""
    return [p for p in root.rglob("*") if p.is_file() and allowed not in p.parents]


def checked_reference(
    factory: Any, name: str, profile: dict[str, Any], bucket: str | None = None
) -> Iterator[RefProcess]:
    """A module's reference with profile overrides (and a bucket), stopped at the end, whose
    stderr must hold no traceback: the body of a module-scoped `ref` fixture."""
    data = factory.mktemp(name) / "data"
    log = factory.mktemp(f"{name}-log") / "reference.stderr"
    options = [arg for key, value in profile.items() for arg in ("--profile", f"{key}={value}")]
    proc = start(data, *options, log=log)
    if bucket is not None:
        proc.wire().create_bucket(bucket)
    yield proc
    proc.stop()
    assert_no_traceback(log)


def running_clean(tmp_path: Path, **profile: object) -> Iterator[RefProcess]:
    """A reference with these profile overrides for one test; afterwards its log must hold no
    traceback (a connection the reference drops on purpose is not an application error)."""
    log = tmp_path / "reference.stderr"
    extra = [arg for key, value in profile.items() for arg in ("--profile", f"{key}={value}")]
    proc = start(tmp_path / "data", *extra, log=log)
    yield proc
    proc.stop()
    assert_no_traceback(log)
