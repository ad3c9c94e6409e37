"""Run the suite against the reference as if it were far away: one latency proxy per listener.

    python bench/far.py --rtt-ms 50 -n 8            # time one `conformance run`
    python bench/far.py --rtt-ms 150 --serve        # keep it up; prints the targets file to use

Starts the reference, reads its ready file, puts a bench/latency_proxy.py proxy in front of
every listener the ready file names (S3, S3 over TLS, API, gateway, public, public TLS, edge,
bindings), and writes a targets TOML (target `far`) whose URLs point at the proxies. Host
headers and TLS pass through untouched (TCP proxying), so virtual-host requests and the TLS
certificate (issued for 127.0.0.1) keep working. Secrets go through environment variables, as
targets files require. Reference-only rules are N/A for a target that is not `reference`.
Not a test and never in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.latency_proxy import ProxyThread
from bench.targets import ROOT, clean_env, start_reference
from conformance.model.targets import SECRET_KEYS, SURFACES

URL_KEYS = ("url", "endpoint", "base_url")
TARGET = "far"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))  # a JSON string is a valid TOML basic string


def proxied_url(url: str, ports: dict[tuple[str, int], int], add: Any) -> str:
    """`url` with its host:port replaced by the proxy's (one proxy per listener)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port
    if port is None:
        return url
    if (host, port) not in ports:
        ports[(host, port)] = add(host, port)
    return urlunsplit(parts._replace(netloc=f"{host}:{ports[(host, port)]}"))


def targets_toml(
    surfaces: dict[str, Any], add: Any, env: dict[str, str]
) -> tuple[str, dict[tuple[str, int], int]]:
    """The targets file text of target `far` and the listener -> proxy port map; secrets are
    put into `env` under EC_FAR_* names."""
    ports: dict[tuple[str, int], int] = {}
    lines: list[str] = []

    def table(path: str, values: dict[str, Any]) -> None:
        lines.append(f"\n[targets.{TARGET}.{path}]")
        nested = []
        for key, value in values.items():
            if isinstance(value, dict):
                nested.append((key, value))
            elif key in SECRET_KEYS:
                name = "EC_FAR_" + f"{path}_{key}".upper().replace(".", "_")
                env[name] = str(value)
                lines.append(f"{key}_env = {_toml_value(name)}")
            elif key in URL_KEYS and isinstance(value, str):
                lines.append(f"{key} = {_toml_value(proxied_url(value, ports, add))}")
            else:
                lines.append(f"{key} = {_toml_value(value)}")
        for key, value in nested:
            table(f"{path}.{key}", value)

    for surface, values in surfaces.items():
        if surface in SURFACES:  # s3_tls etc. are not targets-file surfaces
            table(surface, values)
    for surface, values in surfaces.items():  # proxies also for listeners the file omits
        if surface not in SURFACES:
            for key in URL_KEYS:
                if isinstance(values.get(key), str):
                    proxied_url(values[key], ports, add)
    return "\n".join(lines).lstrip() + "\n", ports


def run_suite(targets_file: Path, env: dict[str, str], workers: str, extra: list[str]) -> float:
    exe = Path(sys.executable).with_name("conformance")
    cmd = [str(exe), "run", "--target", TARGET, "--targets-file", str(targets_file),
           "-n", workers, "--report-dir", "/tmp/ec-far-reports", *extra]  # fmt: skip
    print("far:", " ".join(cmd), file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, check=False)
    elapsed = time.perf_counter() - t0
    print(f"far: exit {proc.returncode}, wall {elapsed:.1f} s", file=sys.stderr, flush=True)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rtt-ms", type=float, default=50.0)
    ap.add_argument("-n", default="8", help="xdist workers of the suite run")
    ap.add_argument("--serve", action="store_true", help="keep proxies up until Ctrl-C")
    ap.add_argument("rest", nargs="*", help="more `conformance run` arguments (after --)")
    args = ap.parse_args(argv)
    reference = start_reference()
    proxies = ProxyThread()
    try:
        env = clean_env()
        text, ports = targets_toml(
            reference.surfaces, lambda h, p: proxies.add(h, p, args.rtt_ms / 1000), env
        )
        work = Path(tempfile.mkdtemp(prefix="ec-far-"))
        targets_file = work / "far.toml"
        targets_file.write_text(text)
        print(f"far: {len(ports)} listeners behind {args.rtt_ms:g} ms RTT; {targets_file}",
              file=sys.stderr, flush=True)  # fmt: skip
        if args.serve:
            (work / "env.json").write_text(json.dumps({k: env[k] for k in env if "EC_FAR_" in k}))
            os.chmod(work / "env.json", 0o600)
            print(f"far: secrets in {work / 'env.json'}; Ctrl-C to stop", file=sys.stderr)
            while True:
                time.sleep(3600)
        run_suite(targets_file, env, args.n, args.rest)
    except KeyboardInterrupt:
        pass
    finally:
        proxies.close()
        reference.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
