"""The reference's bindings bridge in-process: protocol shapes (schema), refusals vs crashes."""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from starlette.testclient import TestClient

from reference_impl.bindings.app import build_app
from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile
from reference_impl.storage.engine import Store

SCHEMA = json.loads(
    (resources.files("conformance") / "schemas" / "bindings_bridge.schema.json").read_text("utf-8")
)


def _client(tmp_path: Path, day: str = "2025-01-01", **overrides: str) -> TestClient:
    date = dt.date.fromisoformat(day)
    ident = default_identity()
    ctx = ServerContext(tmp_path, Profile(date, overrides), ident, date, Store(tmp_path / "d"))
    return TestClient(build_app(ctx), headers={"Authorization": f"Bearer {ident.bindings_token}"})


def _call(client: TestClient, op: str, args: dict[str, Any], **compat: Any) -> Any:
    doc: dict[str, Any] = {"op": op, "bucket": "conformance-bindings", "args": args}
    if compat:
        doc["compat"] = compat
    jsonschema.validate(doc, SCHEMA)
    resp = client.post("/bridge", json=doc)
    jsonschema.validate(resp.json(), SCHEMA)
    return resp


def test_put_list_get_validate_against_schema(tmp_path: Path) -> None:
    client = _client(tmp_path)
    put = _call(
        client, "put", {"key": "a/b", "value": "aGk=", "options": {"customMetadata": {"k": "v"}}}
    )
    assert put.json()["result"]["checksums"]["md5"] == "49f68a5c8493ec2c0bf489821c21fc3b"
    listed = _call(client, "list", {"options": {"delimiter": "/"}}).json()["result"]
    assert listed == {"objects": [], "truncated": False, "delimitedPrefixes": ["a/"]}
    assert _call(client, "get", {"key": "a/b"}).json()["result"]["body"] == "aGk="


def test_refusal_is_200_error_and_bad_request_is_400(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _call(client, "put", {"key": "k", "value": "aGk="})
    refused = _call(client, "get", {"key": "k", "options": {"range": {"suffix": -1}}})
    assert refused.status_code == 200 and refused.json()["error"]["name"] == "TypeError"
    assert (
        client.post("/bridge", json={"op": "nope", "bucket": "conformance-bindings"}).status_code
        == 400
    )


def test_too_many_keys_in_delete_is_not_access_denied(tmp_path: Path) -> None:
    """More than 1000 keys: a refusal, never code 10003 (AccessDenied in the provider's table)."""
    client = _client(tmp_path)
    refused = _call(client, "delete", {"keys": [f"k{i}" for i in range(1001)]}).json()
    assert refused["error"] and "(10003)" not in refused["error"]["message"], refused
    assert "(10022)" in refused["error"]["message"], refused


def test_list_include_follows_compat_date_and_flag(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _call(client, "put", {"key": "k", "value": "aGk=", "options": {"customMetadata": {"k": "v"}}})
    args = {"options": {"include": []}}
    before = _call(client, "list", args, date="2022-07-13").json()["result"]["objects"][0]
    after = _call(client, "list", args, date="2022-07-14").json()["result"]["objects"][0]
    flagged = _call(client, "list", args, date="2022-07-13", flags=["r2_list_honor_include"])
    assert before["customMetadata"] == {"k": "v"}
    assert "customMetadata" not in after
    assert "customMetadata" not in flagged.json()["result"]["objects"][0]


@pytest.mark.parametrize("budget", ["64", "100000"])
def test_list_budget_pages_cover_every_key(tmp_path: Path, budget: str) -> None:
    client = _client(tmp_path, bindings_list_metadata_budget=budget)
    for i in range(5):
        _call(
            client,
            "put",
            {"key": f"k{i}", "value": None, "options": {"customMetadata": {"p": "x" * 40}}},
        )
    seen, cursor = [], None
    while True:
        options: dict[str, Any] = {"limit": 5, **({"cursor": cursor} if cursor else {})}
        page = _call(client, "list", {"options": options}).json()["result"]
        seen += [o["key"] for o in page["objects"]]
        if not page["truncated"]:
            break
        cursor = page["cursor"]
    assert seen == [f"k{i}" for i in range(5)]


@pytest.mark.parametrize(
    "options",
    [
        {"customMetadata": {"k": "x" * 8192}},  # 8193 bytes of names and values
        {"customMetadata": {"k": "é" * 4096}},  # 8193 bytes in UTF-8, 4097 characters
        {"customMetadata": {f"k{i}": "x" * 1000 for i in range(9)}},
        {"httpMetadata": {"contentDisposition": "x" * 8193}},
        {"httpMetadata": {"cacheControl": "x" * 4096, "contentLanguage": "x" * 4097}},
    ],
    ids=["custom-one", "custom-utf8", "custom-many", "http-one", "http-two"],
)
@pytest.mark.parametrize("op", ["put", "createMultipartUpload"])
def test_metadata_over_the_limit_is_refused(
    tmp_path: Path, op: str, options: dict[str, Any]
) -> None:
    """Metadata over R2's 8,192-byte object limit is refused with error 10012, nothing stored
    (the S3 surface's MetadataTooLarge); before, any size was stored and listed back."""
    client = _client(tmp_path)
    args: dict[str, Any] = {"key": "k", "options": options}
    if op == "put":
        args["value"] = "aGk="
    reply = _call(client, op, args)
    assert reply.status_code == 200, reply.text
    error = reply.json().get("error")
    assert error is not None, reply.json()
    assert error["name"] == "Error" and error["message"].endswith("(10012)"), error
    assert error["message"].startswith(f"{op}: ")
    assert _call(client, "head", {"key": "k"}).json()["result"] is None


@pytest.mark.parametrize("op", ["put", "createMultipartUpload"])
def test_metadata_at_the_limit_is_stored(tmp_path: Path, op: str) -> None:
    """Exactly 8,192 bytes of custom metadata, and as much HTTP metadata, are accepted."""
    client = _client(tmp_path)
    options = {
        "customMetadata": {"k": "é" * 4095 + "x"},
        "httpMetadata": {"contentDisposition": "x" * 8192},
    }
    args: dict[str, Any] = {"key": "k", "options": options}
    if op == "put":
        args["value"] = "aGk="
    reply = _call(client, op, args).json()
    assert "error" not in reply, reply
