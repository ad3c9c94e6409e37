"""Keys that are not UTF-8 once percent-decoded are refused on every surface that takes keys.

Issue 16 row 3: `x%ff`, `x%fe`, `x%80` and `x%c3` all decoded to `x\ufffd`, so four different
keys overwrote and deleted each other. Each is now 400 (S3 InvalidURI; copy source
InvalidArgument; bindings error 10020; docs/reference-choices.md), and valid escapes still work.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator

import pytest
import requests
from reliability.refproc import RefProcess

from conformance.clients.public import CustomDomains, PublicClient
from conformance.clients.s3_wire import Query, WireClient, WireReply

BUCKET = "key-encodings"
BAD = ["x%FF", "x%FE", "x%80", "x%C3", "x%C3%28", "x%ED%A0%80", "%F0%9F%98"]


class RawWire(WireClient):
    """Sends paths and query values exactly as given (WireClient would escape `%` as %25)."""

    def url(self, bucket: str | None = None, key: str | None = None, query: Query = ()) -> str:
        path = "/" + (bucket or "") + ("/" + key if key is not None else "")
        text = "&".join(name if value is None else f"{name}={value}" for name, value in query)
        return self.endpoint + path + (f"?{text}" if text else "")


@pytest.fixture(scope="module")
def raw(ref: RefProcess) -> Iterator[RawWire]:
    s3 = ref.surface("s3")
    client = RawWire(s3["endpoint"], s3["access_key_id"], s3["secret_access_key"])
    client.create_bucket(BUCKET).assert_ok()
    client.put_object(BUCKET, "x", b"plain").assert_ok()
    yield client


def _refused(reply: WireReply, code: str = "InvalidURI") -> None:
    assert (reply.status, reply.error_code) == (400, code), reply.body[:300]


def _keys(raw: RawWire) -> list[bytes]:
    listed = raw.request("GET", BUCKET, query=[("list-type", "2")]).assert_ok()
    return [chunk.split(b"</Key>")[0] for chunk in listed.body.split(b"<Key>")[1:]]


@pytest.mark.parametrize("key", BAD)
def test_put_get_delete_of_a_key_that_is_not_utf8_is_400(raw: RawWire, key: str) -> None:
    _refused(raw.put_object(BUCKET, key, key.encode()))
    _refused(raw.request("GET", BUCKET, key))
    _refused(raw.request("DELETE", BUCKET, key))
    _refused(raw.request("POST", BUCKET, key, query=[("uploads", None)]))
    assert _keys(raw) == [b"x"], "a key that is not UTF-8 was stored"


def test_bad_keys_never_alias_each_other(raw: RawWire) -> None:
    """The probe's sequence: put two spellings, delete a third; nothing may be shared."""
    for key in BAD[:2]:
        raw.put_object(BUCKET, key, key.encode())
    raw.request("DELETE", BUCKET, BAD[2])
    assert _keys(raw) == [b"x"]


@pytest.mark.parametrize(
    "name", ["prefix", "start-after", "delimiter", "continuation-token", "marker"]
)
def test_listing_parameters_that_are_not_utf8_are_400(raw: RawWire, name: str) -> None:
    list_type = [] if name == "marker" else [("list-type", "2")]
    _refused(raw.request("GET", BUCKET, query=[*list_type, (name, "x%FF")]))


def test_copy_source_that_is_not_utf8_is_400(raw: RawWire) -> None:
    headers = {"x-amz-copy-source": f"/{BUCKET}/x%FF"}
    _refused(raw.request("PUT", BUCKET, "copy", headers=headers), "InvalidArgument")
    assert _keys(raw) == [b"x"]


def test_valid_escapes_still_name_their_keys(raw: RawWire) -> None:
    raw.put_object(BUCKET, "x%C3%A9", b"e-acute").assert_ok()
    assert raw.request("GET", BUCKET, "x%C3%A9").body == b"e-acute"
    headers = {"x-amz-copy-source": f"/{BUCKET}/x%C3%A9"}
    raw.request("PUT", BUCKET, "copied%E2%82%AC", headers=headers).assert_ok()
    assert sorted(_keys(raw)) == sorted([b"x", "xé".encode(), "copied€".encode()])
    for key in ("x%C3%A9", "copied%E2%82%AC"):
        assert raw.request("DELETE", BUCKET, key).status == 204


def test_multi_delete_with_bytes_that_are_not_utf8_is_400(raw: RawWire) -> None:
    body = b"<Delete><Object><Key>x\xff</Key></Object><Object><Key>x</Key></Object></Delete>"
    reply = raw.request(
        "POST", BUCKET, query=[("delete", None)], body=body, headers={"Content-MD5": _md5(body)}
    )
    _refused(reply, "MalformedXML")
    assert _keys(raw) == [b"x"]


def _md5(body: bytes) -> str:
    return base64.b64encode(hashlib.md5(body).digest()).decode()


@pytest.mark.parametrize("key", ["x\ud800", "\udfff"])
def test_bindings_key_with_a_lone_surrogate_is_refused(ref: RefProcess, key: str) -> None:
    """JSON can carry a lone surrogate; the binding refuses it as an invalid name, never 500."""
    url = ref.surface("bindings")["url"].rstrip("/") + "/bridge"
    for op, args in (
        ("put", {"key": key, "value": ""}),
        ("get", {"key": key}),
        ("head", {"key": key}),
    ):
        doc = {"op": op, "bucket": BUCKET, "args": args}  # json escapes the surrogate as \\ud800
        token = ref.surface("bindings")["token"]
        reply = requests.post(
            url, data=json.dumps(doc).encode(), timeout=10,
            headers={"Authorization": f"Bearer {token}"},
        )  # fmt: skip
        # refused either by the strict JSON reader (400: a lone surrogate is not text) or by
        # the binding as an invalid name (10020); never stored, never a 500
        assert reply.status_code in (200, 400), reply.text[:300]
        error = reply.json()["error"]
        assert reply.status_code == 400 or "10020" in error["message"], reply.text[:300]


def test_public_entrypoint_path_that_is_not_utf8_is_400(ref: RefProcess, raw: RawWire) -> None:
    domain = "key-encodings.public.example"
    CustomDomains(ref.surface("mgmt")).create(BUCKET, domain).assert_envelope_ok()
    public = ref.surface("public")["url"]
    for key in BAD:
        reply = requests.get(f"{public}/{key}", headers={"Host": domain}, timeout=10)
        assert reply.status_code == 400 and "InvalidURI" in reply.text, reply.text[:300]
    assert PublicClient(public, domain, BUCKET).get("x").body == b"plain"
