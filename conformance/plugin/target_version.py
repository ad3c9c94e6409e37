"""The target's self-reported version, for the results file and the history's "which change of
theirs made it go red": what the target says of itself, asked once at the end of a run.

Only surfaces the run used are asked (a gateway's first call may start a chain), with a short
timeout; a target that says nothing leaves the field out. Never raises.
"""

from __future__ import annotations

from typing import Any

import requests

from conformance.model.targets import Target

TIMEOUT = 3.0


def _gateway(surface: dict[str, Any]) -> str | None:
    networks = surface.get("networks") or ["sepolia"]
    url = f"{str(surface['url']).rstrip('/')}/v1/{networks[0]}"
    body = {"jsonrpc": "2.0", "method": "web3_clientVersion", "params": [], "id": 1}
    reply = requests.post(url, json=body, timeout=TIMEOUT)
    result = reply.json().get("result") if reply.ok else None
    return result if isinstance(result, str) and result else None


def _s3(surface: dict[str, Any]) -> str | None:
    reply = requests.get(
        str(surface["endpoint"]), timeout=TIMEOUT, verify=surface.get("verify", True)
    )
    return reply.headers.get("Server") or None


ASKERS = {"gateway": _gateway, "s3": _s3}


def probe(target: Target | None, used: set[str]) -> str | None:
    """`surface: version` pairs of the used surfaces that report one, joined; else None."""
    if target is None:
        return None
    said = []
    for name, ask in ASKERS.items():
        if name not in used or not target.offers(name):
            continue
        try:
            version = ask(target.surface(name))
        except Exception:  # a target that fails here has failed the run's tests already
            version = None
        if version:
            said.append(f"{name}: {version[:80]}")
    return "; ".join(said)[:200] or None
