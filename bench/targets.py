"""Start and stop benchmark targets: the reference as a subprocess, peers by their start scripts.

Every target ends up as a `Running` with an S3 endpoint, credentials and the pid whose process
tree the RSS sampler watches, so the measuring code never knows which implementation it drives.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PEERS_DIR = ROOT / "fixtures" / "peers"
PEERS_STATE = Path(os.environ.get("EC_PEERS_STATE", "/tmp/edge-conformance-peers"))
PEERS = ("moto", "seaweedfs", "s3rver", "radosgw", "miniflare")
# Peers speak AWS regions; the reference's own region is `auto`.
PEER_REGION = "us-east-1"
# Variables that make clients try TLS settings against plain-http loopback endpoints.
CA_VARS = ("AWS_CA_BUNDLE",)


@dataclass(frozen=True)
class PeerSpec:
    """A peer that does not follow the fixtures/peers/<name>/start.sh convention."""

    start: str  # script, relative to PEERS_DIR
    stop: str
    state: str  # its directory under PEERS_STATE
    env_prefix: str  # <prefix>_ACCESS_KEY_ID / <prefix>_SECRET_ACCESS_KEY in its env file
    bucket_env: str | None = None  # env-file variable naming a pre-configured bucket


PEER_SPECS = {
    # miniflare's S3 endpoint for local R2 buckets: buckets are fixed by its configuration
    # (CreateBucket answers 501), so the load uses the one start-s3.sh configured.
    "miniflare": PeerSpec(
        "miniflare/start-s3.sh",
        "miniflare/stop-s3.sh",
        "miniflare-s3",
        "MINIFLARE_S3",
        bucket_env="MINIFLARE_S3_BUCKET",
    ),
}


@dataclass
class Running:
    name: str
    endpoint: str
    access_key: str
    secret_key: str
    region: str
    pid: int
    cold_start_s: float | None = None
    stop: Callable[[], None] = field(default=lambda: None, repr=False)
    surfaces: dict[str, Any] = field(default_factory=dict, repr=False)  # reference: ready doc
    bucket: str | None = None  # a fixed bucket to use instead of creating one


def clean_env() -> dict[str, str]:
    """The environment for child processes, without CA-bundle variables."""
    return {k: v for k, v in os.environ.items() if k not in CA_VARS}


def start_reference(
    python: str = sys.executable, timeout: float = 30.0, durable: bool = False
) -> Running:
    """Spawn `python -m reference_impl` and time spawn -> ready file (the cold start)."""
    work = Path(tempfile.mkdtemp(prefix="ec-bench-ref-"))
    ready = work / "ready.json"
    cmd = [python, "-m", "reference_impl", "--port", "0", "--ready-file", str(ready)]
    cmd += ["--data-dir", str(work / "data"), "--quiet"] + (["--durable"] if durable else [])
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=clean_env(), stdout=subprocess.DEVNULL)
    while not ready.exists():
        if proc.poll() is not None:
            raise RuntimeError(f"reference exited with {proc.returncode} before ready")
        if time.perf_counter() - t0 > timeout:
            proc.kill()
            raise RuntimeError("reference not ready in time")
        time.sleep(0.005)
    cold = time.perf_counter() - t0
    surfaces = json.loads(ready.read_text())["surfaces"]
    s3 = surfaces["s3"]

    def stop() -> None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    return Running(
        name="reference-durable" if durable else "reference",
        endpoint=s3["endpoint"],
        access_key=s3["access_key_id"],
        secret_key=s3["secret_access_key"],
        region=s3.get("region", "auto"),
        pid=proc.pid,
        cold_start_s=cold,
        stop=stop,
        surfaces=surfaces,
    )


def _read_env_file(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("export "):
            key, _, raw = line.removeprefix("export ").partition("=")
            values[key] = shlex.split(raw)[0] if raw else ""
    return values


def start_peer(name: str) -> Running:
    """Run fixtures/peers/<name>/start.sh (or its PEER_SPECS script) and read the env file it
    leaves behind."""
    spec = PEER_SPECS.get(name) or PeerSpec(
        f"{name}/start.sh", f"{name}/stop.sh", name, name.upper()
    )
    t0 = time.perf_counter()
    subprocess.run(
        [str(PEERS_DIR / spec.start)], check=True, env=clean_env(), stdout=subprocess.DEVNULL
    )
    cold = time.perf_counter() - t0
    env = _read_env_file(PEERS_STATE / spec.state / "env")
    prefix = spec.env_prefix

    def stop() -> None:
        subprocess.run([str(PEERS_DIR / spec.stop)], check=False, env=clean_env())

    return Running(
        name=name,
        endpoint=env["EC_PEER_ENDPOINT"],
        access_key=env[f"{prefix}_ACCESS_KEY_ID"],
        secret_key=env[f"{prefix}_SECRET_ACCESS_KEY"],
        region=PEER_REGION,
        pid=int(env["EC_PEER_PID"]),
        cold_start_s=cold,
        stop=stop,
        bucket=env[spec.bucket_env] if spec.bucket_env else None,
    )


def start(name: str) -> Running:
    if name == "reference":
        return start_reference()
    if name == "reference-durable":  # replies wait for a shared WAL fsync (`--durable`)
        return start_reference(durable=True)
    if name not in PEERS:
        known = f"reference, reference-durable, {', '.join(PEERS)}"
        raise ValueError(f"unknown target {name!r}; known: {known}")
    return start_peer(name)
