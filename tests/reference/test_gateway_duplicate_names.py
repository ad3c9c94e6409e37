"""The JSON-RPC gateway refuses an object that repeats a member name (hostile round 8).

`{"jsonrpc":"2.0","id":1,"id":2,...}` was run with the last copy. RFC 8259 section 4 says names
SHOULD be unique and that software receiving repeated ones behaves unpredictably (parsers keep
the first, the last, or refuse); JSON-RPC 2.0 is silent. The reference refuses them with -32700,
like its other I-JSON (RFC 7493) refusals: a reference choice recorded in docs/decisions.md
(Area B), not a catalog rule, so no conformance test fails a gateway that accepts them.
"""

from __future__ import annotations

import pytest
import requests
from helpers.gateway_calls import CALL, SEPOLIA


@pytest.mark.parametrize(
    "body",
    ['{"jsonrpc":"2.0","id":1,"id":2,"method":"eth_chainId","params":[]}',
     '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","method":"eth_chainId","params":[]}',
     '{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"eth_chainId","params":[]}',
     '[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},'
     '{"jsonrpc":"2.0","id":2,"id":3,"method":"eth_chainId"}]',
     '{"jsonrpc":"2.0","id":1,"method":"eth_call",'
     '"params":[{"to":"0x' + "11" * 20 + '","to":"0x' + "22" * 20 + '"},"latest"]}'],
    ids=["id", "method", "jsonrpc", "in-batch", "in-params"],
)  # fmt: skip
def test_repeated_names_are_refused(gateway_url: str, body: str) -> None:
    """Whichever copy a parser keeps, the call is not run: -32700, id null, HTTP 200."""
    resp = requests.post(f"{gateway_url}/v1/sepolia", data=body, timeout=60,
                         headers={"Content-Type": "application/json"})  # fmt: skip
    doc = resp.json()
    assert resp.status_code == 200 and isinstance(doc, dict), resp.text[:300]
    assert doc["id"] is None and "result" not in doc, doc
    assert doc["error"]["code"] == -32700 and "duplicate" in doc["error"]["message"], doc


def test_same_name_in_sibling_objects_is_fine(gateway_url: str) -> None:
    """Only a name repeated within one object is refused; a batch repeats names freely."""
    batch = [CALL, {**CALL, "id": 8}]
    resp = requests.post(f"{gateway_url}/v1/sepolia", json=batch, timeout=60)
    assert [r["result"] for r in resp.json()] == [SEPOLIA, SEPOLIA], resp.text[:300]
