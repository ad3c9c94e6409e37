"""An audit log page is bounded in bytes (issue 26, fresh adversarial pass).

Every PutBucketCors stores its whole rule set as the audit entry's change (~1.6 MB for a legal
3.3 MB configuration). `GET .../r2/audit?per_page=1000` parsed and serialised all of them on the
event loop: 20 such entries made a 33 MB page that held every surface ~2 s, three at once over
4 s, and the page grows with every write. A page now ends once its changes pass
`audit_page_max_bytes` (1 MiB), with a cursor, and the cursor walk still returns every entry.
"""

from __future__ import annotations

import pytest
import requests
from reliability.refproc import RefProcess
from reliability.test_offload_cors import huge_cors_xml

pytestmark = pytest.mark.slow
BUCKET = "audit-bounded"
PUTS = 4
PAGE_LIMIT = 3 * 1024 * 1024  # 1 MiB of changes plus the last entry (~1.6 MB) and framing


def test_audit_pages_are_bounded_and_complete(ref: RefProcess) -> None:
    wire = ref.wire()
    assert wire.request("PUT", BUCKET).status == 200
    body = huge_cors_xml()
    for _ in range(PUTS):
        assert wire.request("PUT", BUCKET, query=[("cors", "")], body=body).status == 200
    account = ref.account_api()
    url, headers = f"{account['base']}/r2/audit", account["headers"]
    seen: list[str] = []
    cursor = ""
    for _ in range(PUTS + 10):
        reply = requests.get(
            url, headers=headers, params={"bucket": BUCKET, "per_page": "1000", "cursor": cursor},
            timeout=60,
        )  # fmt: skip
        assert reply.status_code == 200, reply.text[:300]
        assert len(reply.content) < PAGE_LIMIT, f"an audit page of {len(reply.content)} bytes"
        doc = reply.json()
        seen += [entry["action"] for entry in doc["result"]]
        cursor = doc["result_info"].get("cursor") or ""
        if not cursor:
            break
    assert seen.count("PutBucketCors") == PUTS, seen
