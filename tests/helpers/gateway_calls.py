"""The one JSON-RPC call the reference-gateway tests send when only a well-formed, answered
call matters (their subject is the framing around it), and its answer on Sepolia."""

from __future__ import annotations

CALL = {"jsonrpc": "2.0", "id": 7, "method": "eth_chainId", "params": []}
SEPOLIA = "0xaa36a7"  # eth_chainId of sepolia: 11155111
