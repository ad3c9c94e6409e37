"""Load generator for the runtime bindings bridge (docs/bindings-bridge.md), S3-table style.

The bridge is one `POST {url}/bridge` with a JSON document per binding call, so every request
body is serialised before the clock starts and the timed loop only sends bytes and checks the
first bytes of the reply, as bench.load does with presigned URLs. Phases, bounds, percentiles and
the client CPU share are bench.load's, so the two tables read the same way.

No streamed large put/get: the bridge carries a body as base64 inside the JSON document of one
call (no chunked or raw-body form), so a "large" put or get is one buffered document on both
sides and would measure JSON and base64 handling, not streaming.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import psutil
from yarl import URL

from bench.load import Phase, closed_loop
from bench.rss import tree_rss
from bench.targets import PEERS_DIR, PEERS_STATE, _read_env_file, clean_env, start_reference

DEFAULT_BUCKET = "conformance-bindings"  # the one bucket the miniflare bridge binds by default
BINDINGS_PEERS = ("miniflare",)
OPS = ("put", "get", "head", "list")
HELLO = "hello"  # the bridge greeting, GET {url}/: the transport alone, no binding call
JSON_HEADERS = {"Content-Type": "application/json"}
STREAMING_SKIPPED = (
    "not measured: the bridge carries a body as base64 inside one JSON document per call, so "
    "there is no streamed body to measure"
)


@dataclass
class BridgeTarget:
    """A started bindings bridge; `first_call_s` is spawn -> first answered bridge call."""

    name: str
    url: str
    bucket: str
    pid: int
    cold_start_s: float
    first_call_s: float | None = None
    stop: Callable[[], None] = field(default=lambda: None, repr=False)

    @property
    def bridge(self) -> str:
        return self.url.rstrip("/") + "/bridge"


def bridge_doc(op: str, bucket: str, args: dict[str, Any], compat: dict[str, Any]) -> bytes:
    return json.dumps({"op": op, "bucket": bucket, "args": args, "compat": compat}).encode()


def default_compat() -> dict[str, Any]:
    """Today, no flags: miniflare clamps a date past its workerd's to its newest supported one,
    which is the instance its start script already warmed, so no second instance starts."""
    return {"date": dt.date.today().isoformat(), "flags": []}


def _answered(reply: bytes, op: str) -> bool:
    """A result (not a thrown error), and for get/head an object (not null: the key exists)."""
    if not reply.startswith(b'{"result":'):
        return False
    return op not in ("get", "head") or not reply.startswith(b'{"result":null')


def _first_call(target: BridgeTarget, t0: float, compat: dict[str, Any], timeout: float) -> float:
    """Seconds from t0 until a bridge head call answers with a result (readiness of the binding,
    which for miniflare includes starting workerd for this compatibility setting)."""
    import requests  # setup only, never in a timed loop

    doc = bridge_doc("head", target.bucket, {"key": "ec-bench-ready"}, compat)
    deadline = time.perf_counter() + timeout
    last = ""
    while time.perf_counter() < deadline:
        try:
            resp = requests.post(target.bridge, data=doc, headers=JSON_HEADERS, timeout=timeout)
            if resp.status_code == 200 and resp.content.startswith(b'{"result":'):
                return time.perf_counter() - t0
            last = f"HTTP {resp.status_code}: {resp.text[:200]}"
        except requests.RequestException as exc:
            last = str(exc)[:200]
        time.sleep(0.05)
    raise RuntimeError(f"{target.name}: no bridge answer within {timeout:.0f}s ({last})")


def _start_peer(name: str) -> tuple[BridgeTarget, float]:
    """Run the peer's start script (returns the target and its spawn time); refuse a peer that
    is already up: it is someone else's, and its start-to-ready would be meaningless."""
    pid_file = PEERS_STATE / name / "pid"
    pid = int(pid_file.read_text().strip() or 0) if pid_file.exists() else 0
    if pid > 0 and tree_rss(pid):
        raise RuntimeError(f"{name} is already running (pid file {pid_file}); stop it first")
    t0 = time.perf_counter()
    subprocess.run(
        [str(PEERS_DIR / name / "start.sh")], check=True, env=clean_env(), stdout=subprocess.DEVNULL
    )
    cold = time.perf_counter() - t0
    env = _read_env_file(PEERS_STATE / name / "env")

    def stop() -> None:
        subprocess.run([str(PEERS_DIR / name / "stop.sh")], check=False, env=clean_env())

    target = BridgeTarget(
        name, env["EC_PEER_ENDPOINT"], DEFAULT_BUCKET, int(env["EC_PEER_PID"]), cold, stop=stop
    )
    return target, t0


def start(name: str, compat: dict[str, Any], timeout: float = 60.0) -> BridgeTarget:
    """The reference (its `bindings` surface) or a peer's bridge, timed to the first answered
    call with the benchmark's compatibility setting."""
    if name == "reference":
        t0 = time.perf_counter()
        running = start_reference()
        surface = running.surfaces["bindings"]
        target = BridgeTarget(
            name,
            str(surface["url"]),
            str(surface.get("bucket") or DEFAULT_BUCKET),
            running.pid,
            float(running.cold_start_s or 0.0),
            stop=running.stop,
        )
    elif name in BINDINGS_PEERS:
        target, t0 = _start_peer(name)
    else:
        known = ", ".join(("reference", *BINDINGS_PEERS))
        raise ValueError(f"unknown bindings target {name!r}; known: {known}")
    try:
        target.first_call_s = _first_call(target, t0, compat, timeout)
    except Exception:
        target.stop()
        raise
    return target


def tree_cpu(pid: int) -> dict[str, float]:
    """CPU seconds (user + system) so far of pid and its descendants, summed by process name,
    to tell which process of a target (miniflare: node driver, workerd) did the work."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return {}
    out: dict[str, float] = {}
    for proc in procs:
        try:
            with proc.oneshot():
                times, name = proc.cpu_times(), proc.name()
        except psutil.Error:
            continue
        out[name] = out.get(name, 0.0) + times.user + times.system
    return out


def cpu_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: after[name] - before.get(name, 0.0) for name in after}


def prepare(
    op: str, bucket: str, prefix: str, keys: list[str], body: bytes, compat: dict[str, Any]
) -> list[bytes]:
    """Serialised bridge documents for op, one per key (a single one for list; an empty one,
    unused, for the greeting)."""
    if op == HELLO:
        return [b""]
    if op == "list":
        return [bridge_doc("list", bucket, {"options": {"limit": 100, "prefix": prefix}}, compat)]
    value = base64.b64encode(body).decode()
    docs = []
    for key in keys:
        args: dict[str, Any] = {"key": prefix + key}
        if op == "put":
            args |= {"value": value, "options": {}}
        elif op == "get":
            args["options"] = {}
        docs.append(bridge_doc(op, bucket, args, compat))
    return docs


async def _run_phase(
    url: str, op: str, docs: list[bytes], concurrency: int, seconds: float, max_requests: int
) -> Phase:
    target = URL(url, encoded=True)
    if op == HELLO:
        target = URL(url.removesuffix("/bridge") + "/", encoded=True)

    async def send(session: aiohttp.ClientSession, doc: bytes) -> bool:
        if op == HELLO:
            request = session.get(target)
        else:
            request = session.post(target, data=doc, headers=JSON_HEADERS)
        async with request as resp:
            reply = await resp.read()
            if op == HELLO:
                return resp.status == 200 and b"edge-conformance-bindings-bridge" in reply
            return resp.status == 200 and _answered(reply, op)

    return await closed_loop(op, docs, send, concurrency, seconds, max_requests)


def small_objects(
    target: BridgeTarget,
    compat: dict[str, Any],
    concurrencies: tuple[int, ...] = (1, 16),
    size: int = 4096,
    keys: int = 256,
    seconds: float = 3.0,
    max_requests: int = 20_000,
    hello: bool = True,
) -> list[tuple[Phase, dict[str, float]]]:
    """put, get, head and list (limit 100 of `keys`) of small objects at each concurrency, each
    with the server tree's CPU seconds by process name; first the bare greeting when `hello`.

    A fresh key prefix per run keeps apart other users of the bridge's one bucket."""
    prefix = f"ec-bench-{uuid.uuid4().hex[:8]}/small/"
    names = [f"{i:05d}" for i in range(keys)]
    body = b"b" * size
    ops = (HELLO, *OPS) if hello else OPS
    docs = {op: prepare(op, target.bucket, prefix, names, body, compat) for op in ops}
    # Seed every key untimed, so that get/head/list read full data even when the timed put
    # phases are too short to cover all keys.
    asyncio.run(_run_phase(target.bridge, "put", docs["put"], 4, 300.0, keys))
    out: list[tuple[Phase, dict[str, float]]] = []
    for op in ops:
        for conc in concurrencies:
            cpu0 = tree_cpu(target.pid)
            phase = asyncio.run(
                _run_phase(target.bridge, op, docs[op], conc, seconds, max_requests)
            )
            out.append((phase, cpu_delta(cpu0, tree_cpu(target.pid))))
    return out
