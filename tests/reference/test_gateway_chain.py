"""The embedded chain adapter in-process: every method's result against our schemas and the
Ethereum execution API (OpenRPC, when ../shared/reference-schemas has it), plus normalisation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_utils import to_checksum_address
from jsonschema import Draft202012Validator

from reference_impl.gateway.chain import DEV_ADDRESS, DEV_PRIVATE_KEY, EmbeddedChain
from reference_impl.gateway.errors import RpcError
from reference_impl.gateway.format import Formatter
from reference_impl.gateway.params import method_specs
from reference_impl.gateway.upstream import normalise

ROOT = Path(__file__).resolve().parents[2]
OURS = json.loads((ROOT / "conformance/schemas/jsonrpc/eth.schema.json").read_text("utf-8"))
OPENRPC = ROOT.parent / "shared/reference-schemas/eth_refs-openrpc.json"
TOPIC = "11" * 32
# init code deploying a contract whose every call emits LOG1(TOPIC) with 32 bytes of data
RUNTIME = "602a600052" + "7f" + TOPIC + "60206000a1" + "00"
INIT = "0x60" + f"{len(RUNTIME) // 2:02x}" + "600c60003960" + f"{len(RUNTIME) // 2:02x}" + "6000f3"
INIT += RUNTIME


def ours(method: str, value: Any) -> list[str]:
    schema = {"$ref": f"#/$defs/{method}", "$defs": OURS["$defs"]}
    return [e.message for e in Draft202012Validator(schema).iter_errors(value)]


def theirs(doc: dict[str, Any], method: str, value: Any) -> list[str]:
    spec = next(m for m in doc["methods"] if m["name"] == method)
    schema = {**spec["result"]["schema"], "components": doc["components"]}
    errors = Draft202012Validator(schema).iter_errors(value)
    # descend into oneOf/anyOf so that one missing field is named, not the whole document
    leaves = [leaf for e in errors for leaf in _leaves(e)]
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}" for e in leaves]


def _leaves(error: Any) -> list[Any]:
    """The innermost errors under an error, so a missing field is named."""
    if not error.context:
        return [error]
    return [leaf for sub in error.context for leaf in _leaves(sub)]


def sign(chain_id: int, nonce: int, **fields: Any) -> str:
    if "to" in fields:
        fields["to"] = to_checksum_address(fields["to"])
    tx = {
        "nonce": nonce,
        "chainId": chain_id,
        "gas": 200_000,
        "maxFeePerGas": 10**10,
        "maxPriorityFeePerGas": 10**9,
        "value": 0,
        **fields,
    }
    return "0x" + Account.sign_transaction(tx, DEV_PRIVATE_KEY).raw_transaction.hex()


@pytest.fixture(scope="module")
def samples() -> dict[str, list[Any]]:
    """Results of every served method on a chain with a deployment and a log-emitting call."""
    chain = EmbeddedChain(11155111, "test/1", Formatter())
    rq = chain.request
    deploy = rq("eth_sendRawTransaction", [sign(11155111, 0, data=INIT)])
    contract = rq("eth_getTransactionReceipt", [deploy])["contractAddress"]
    call = rq("eth_sendRawTransaction", [sign(11155111, 1, to=contract)])
    receipt = rq("eth_getTransactionReceipt", [call])
    head = rq("eth_blockNumber", [])
    return {
        "web3_clientVersion": [rq("web3_clientVersion", [])],
        "net_version": [rq("net_version", [])],
        "eth_chainId": [rq("eth_chainId", [])],
        "eth_blockNumber": [head],
        "eth_gasPrice": [rq("eth_gasPrice", [])],
        "eth_getBlockByNumber": [rq("eth_getBlockByNumber", [head, full]) for full in (False, True)]
        + [rq("eth_getBlockByNumber", ["0x0", False]), rq("eth_getBlockByNumber", ["0x99", True])],
        "eth_getBlockByHash": [rq("eth_getBlockByHash", [receipt["blockHash"], True])],
        "eth_getBalance": [rq("eth_getBalance", [DEV_ADDRESS, "latest"])],
        "eth_getTransactionCount": [rq("eth_getTransactionCount", [DEV_ADDRESS])],
        "eth_getCode": [rq("eth_getCode", [contract, "latest"])],
        "eth_call": [rq("eth_call", [{"to": contract}, "latest"])],
        "eth_estimateGas": [rq("eth_estimateGas", [{"from": DEV_ADDRESS, "to": contract}])],
        "eth_sendRawTransaction": [call],
        "eth_getTransactionByHash": [
            rq("eth_getTransactionByHash", [call]),
            rq("eth_getTransactionByHash", ["0x" + "ab" * 32]),
        ],
        "eth_getTransactionReceipt": [receipt, rq("eth_getTransactionReceipt", [deploy])],
        "eth_getLogs": [rq("eth_getLogs", [{"fromBlock": "0x0", "address": contract}])],
        "web3_sha3": [rq("web3_sha3", ["0x68656c6c6f"])],
        "net_listening": [rq("net_listening", [])],
        "eth_syncing": [rq("eth_syncing", [])],
        "eth_mining": [rq("eth_mining", [])],
        "eth_feeHistory": [
            rq("eth_feeHistory", ["0x2", "latest", [25, 75]]),
            rq("eth_feeHistory", ["0x1", "0x0"]),
        ],
        "eth_getStorageAt": [rq("eth_getStorageAt", [contract, "0x0", "latest"])],
        "eth_getBlockTransactionCountByNumber": [
            rq("eth_getBlockTransactionCountByNumber", [receipt["blockNumber"]]),
            rq("eth_getBlockTransactionCountByNumber", ["0x99"]),
        ],
        "eth_getBlockTransactionCountByHash": [
            rq("eth_getBlockTransactionCountByHash", [receipt["blockHash"]]),
        ],
    }


def test_log_round_trip(samples: dict[str, list[Any]]) -> None:
    """A log emitted by a call shows in its receipt, its bloom and eth_getLogs."""
    receipt = samples["eth_getTransactionReceipt"][0]
    assert receipt["status"] == "0x1" and receipt["logs"][0]["topics"] == ["0x" + TOPIC]
    assert receipt["logsBloom"] != "0x" + "00" * 256 and len(receipt["logsBloom"]) == 514
    assert samples["eth_getLogs"][0] == receipt["logs"]
    assert samples["eth_getBlockByNumber"][3] is None


EMBEDDED = sorted(m for m, spec in method_specs().items() if spec.get("embedded", True))


@pytest.mark.parametrize("method", EMBEDDED)
def test_results_match_our_schemas(samples: dict[str, list[Any]], method: str) -> None:
    """Each served method's results validate against conformance/schemas/jsonrpc."""
    for value in samples[method]:
        assert not ours(method, value), (method, value)


def test_results_match_the_execution_api(samples: dict[str, list[Any]]) -> None:
    """What our schemas accept, the Ethereum execution API's OpenRPC schemas accept too."""
    if not OPENRPC.exists():
        pytest.skip("../shared/reference-schemas/eth_refs-openrpc.json not present")
    doc = json.loads(OPENRPC.read_text("utf-8"))
    served = {m["name"] for m in doc["methods"]}
    for method, values in samples.items():
        if method not in served:
            continue  # web3_/net_ methods are not in the execution API document
        for value in values:
            mismatch = [m for m in theirs(doc, method, value) if "blockTimestamp" not in m]
            assert not mismatch, (method, mismatch[:3])


def test_primitive_patterns_agree_with_the_execution_api() -> None:
    """Our uint, hash32, address and bloom patterns are the execution API's (bytes: even only)."""
    if not OPENRPC.exists():
        pytest.skip("../shared/reference-schemas/eth_refs-openrpc.json not present")
    comp = json.loads(OPENRPC.read_text("utf-8"))["components"]["schemas"]
    for mine, ref in (
        ("uint", "uint"),
        ("hash32", "hash32"),
        ("address", "address"),
        ("bloom", "bytes256"),
        ("bytes8", "bytes8"),
    ):
        assert OURS["$defs"][mine]["pattern"] == comp[ref]["pattern"], mine


def test_added_methods_answer_what_they_should(samples: dict[str, list[Any]]) -> None:
    """web3_sha3 is keccak-256; fee history covers its blocks plus the next base fee; counts."""
    hello = "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"
    assert samples["web3_sha3"] == [hello]
    assert samples["net_listening"] == [True] and samples["eth_syncing"] == [False]
    two, genesis = samples["eth_feeHistory"]
    assert len(two["baseFeePerGas"]) == 3 and len(two["gasUsedRatio"]) == 2
    assert len(two["reward"]) == 2 and all(len(r) == 2 for r in two["reward"])
    assert int(two["reward"][-1][0], 16) > 0, "the last block's call paid a priority fee"
    assert genesis["oldestBlock"] == "0x0" and "reward" not in genesis
    assert samples["eth_getBlockTransactionCountByNumber"] == ["0x1", None]
    assert samples["eth_getBlockTransactionCountByHash"] == ["0x1"]


def test_methods_the_embedded_chain_cannot_answer_are_not_served() -> None:
    """eth_getProof and trace_filter need a real node: the embedded chain says so."""
    chain = EmbeddedChain(1, "t", Formatter())
    assert not chain.answers("eth_getProof") and not chain.answers("trace_filter")
    assert chain.answers("eth_feeHistory") and chain.request("eth_chainId", []) == "0x1"


def test_each_network_has_its_chain_id() -> None:
    """eth-tester's fixed chain id is replaced by the network's, signatures included."""
    chain = EmbeddedChain(4, "t", Formatter())
    assert chain.request("eth_chainId", []) == "0x4"
    assert chain.request("eth_sendRawTransaction", [sign(4, 0, to=DEV_ADDRESS)]).startswith("0x")
    with pytest.raises(RpcError) as wrong:
        chain.request("eth_sendRawTransaction", [sign(11155111, 1, to=DEV_ADDRESS)])
    assert wrong.value.code == -32000


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        ({"id": 1, "error": {"code": 3, "message": "execution reverted"}}, -32000),
        ({"id": 1, "error": {"code": -32600, "message": "bad"}}, -32603),
        ({"id": 1, "error": {"code": -32602, "message": "bad"}}, -32602),
        ({"id": 1, "error": "boom"}, -32603),
        ({"id": 2, "result": 1}, -32603),
        ({"id": 1, "result": 1, "error": {"code": 1, "message": "x"}}, -32603),
        ("<html>", -32603),
    ],
    ids=["revert", "upstream-invalid-request", "kept", "string-error", "wrong-id", "both", "html"],
)
def test_upstream_errors_are_normalised(reply: Any, code: int) -> None:
    """An upstream's errors reach clients only as standard or server-range codes."""
    with pytest.raises(RpcError) as err:
        normalise(reply, 1)
    assert err.value.code == code
