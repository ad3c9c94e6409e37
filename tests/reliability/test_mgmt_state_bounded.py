"""The stored rulesets and log push jobs are bounded in size (issue 26, fresh adversarial pass).

They live in one JSON document rewritten on the event loop on every change and after every log
push batch. Nothing bounded it: 40 custom rulesets with 900 KB descriptions made each rewrite
take ~0.5 s (pure-Python encoder) and it grew with every ruleset. The document is now written
by the C encoder and a POST/PUT that could take it past `mgmt_state_max_bytes` is a 413.
"""

from __future__ import annotations

from collections.abc import Callable

import requests
from reliability.refproc import RefProcess

CAP = 3_000_000
DESCRIPTION = "d" * 900_000


def test_rulesets_stop_at_the_state_bound(launch: Callable[..., RefProcess]) -> None:
    ref = launch("--profile", f"mgmt_state_max_bytes={CAP}")
    zone = ref.zone_api()
    url, headers = f"{zone['base']}/rulesets", zone["headers"]

    def create(name: str) -> requests.Response:
        body = {"name": name, "kind": "custom", "phase": "http_request_late_transform",
                "rules": [], "description": DESCRIPTION}  # fmt: skip
        return requests.post(url, json=body, headers=headers, timeout=60)

    made: list[str] = []
    refused = None
    for i in range(10):
        reply = create(f"big-{i}")
        if reply.status_code != 200:
            refused = reply
            break
        made.append(reply.json()["result"]["id"])
    assert refused is not None, f"{len(made)} rulesets of 900 KB stored under a 3 MB bound"
    assert refused.status_code == 413 and refused.json()["success"] is False, refused.text[:300]
    assert 1 <= len(made) <= 3, made
    # deleting makes room again: the bound never locks an account out
    assert requests.delete(f"{url}/{made[0]}", headers=headers, timeout=30).status_code < 300
    assert create("again").status_code == 200
