"""Adversarial battery: decoded numbers, stored JSON and names on every surface (issue 26).

The rule (docs/architecture.md, "Bounded work per request"): every number a client sends is
ASCII digits only and bounded in length and size; every stored JSON value is finite; every name
is checked whole (`\\Z`, never `$`, which also matches before a trailing newline). Each
surface gets the same hostile values and must answer its own clear 4xx, never a 500, and must
store nothing it then cannot serve.
"""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from reliability.refproc import RefProcess

from conformance.clients.s3_wire import WireClient, WireReply

TIMEOUT = (5.0, 30.0)
BUCKET = "battery-numbers"
BODY = b"0123456789" * 10
# numbers Python's int()/isdigit() take or choke on: superscript two (isdigit() is true, int()
# raises), Arabic-Indic three (int() gives 3), past the 4,300-digit limit, signs, underscores
NUMBERS = {
    "superscript": "\u00b2",
    "arabic-indic": "\u0663",
    "digits-5000": "7" * 5000,
    "digits-30": "9" * 30,
    "minus": "-1",
    "plus": "+1",
    "underscore": "1_0",
    "space": " 1",
}
# header values travel as latin-1: only the latin-1 ones can be sent there
HEADER_NUMBERS = {k: v for k, v in NUMBERS.items() if k not in ("arabic-indic", "space")}


def _no_500(reply: WireReply) -> WireReply:
    assert reply.status < 500, f"{reply.method} {reply.url}: {reply.status} {reply.body[:300]!r}"
    return reply


def _invalid(reply: WireReply, *codes: str) -> None:
    _no_500(reply)
    assert reply.status == 400, f"{reply.url}: {reply.status} {reply.body[:300]!r}"
    assert reply.error_code in (codes or ("InvalidArgument",)), reply.body[:300]


@pytest.fixture(scope="module")
def wire(ref: RefProcess) -> Iterator[WireClient]:
    client = ref.wire()
    client.create_bucket(BUCKET).assert_ok()
    client.put_object(BUCKET, "fixed", BODY).assert_ok()
    yield client


@pytest.fixture(scope="module")
def upload_id(wire: WireClient) -> str:
    reply = wire.request("POST", BUCKET, "mp", query=[("uploads", None)]).assert_ok()
    found = reply.body.split(b"<UploadId>")[1].split(b"</UploadId>")[0]
    return found.decode()


@pytest.fixture(scope="module")
def mgmt(ref: RefProcess) -> dict[str, Any]:
    return ref.account_api()


@pytest.fixture(scope="module")
def rules(ref: RefProcess) -> dict[str, Any]:
    return ref.zone_api()


# -- S3: query parameters and headers -------------------------------------------------------


@pytest.mark.parametrize("name", sorted(NUMBERS))
@pytest.mark.parametrize(
    "query",
    [
        [("list-type", "2"), ("max-keys", "{}")],
        [("max-keys", "{}")],
        [("uploads", None), ("max-uploads", "{}")],
    ],
    ids=["v2-max-keys", "v1-max-keys", "max-uploads"],
)
def test_s3_list_numbers_are_ascii_and_bounded(
    wire: WireClient, query: list[tuple[str, str | None]], name: str
) -> None:
    sent = [(k, None if v is None else v.format(NUMBERS[name])) for k, v in query]
    _invalid(wire.request("GET", BUCKET, query=sent))


@pytest.mark.parametrize("name", sorted(HEADER_NUMBERS))
def test_s3_bucket_list_cf_max_keys_header(wire: WireClient, name: str) -> None:
    _invalid(wire.request("GET", headers={"cf-max-keys": HEADER_NUMBERS[name]}))


@pytest.mark.parametrize("name", sorted(NUMBERS))
def test_s3_part_number_on_get_and_upload_part(wire: WireClient, upload_id: str, name: str) -> None:
    number = NUMBERS[name]
    _invalid(wire.request("GET", BUCKET, "fixed", query=[("partNumber", number)]))
    query = [("partNumber", number), ("uploadId", upload_id)]
    _invalid(wire.request("PUT", BUCKET, "mp", query=query, body=b"part"))


@pytest.mark.parametrize("name", sorted(HEADER_NUMBERS))
def test_s3_decoded_content_length_is_ascii_and_bounded(wire: WireClient, name: str) -> None:
    headers = {"x-amz-decoded-content-length": HEADER_NUMBERS[name]}
    body = b"4\r\nabcd\r\n0\r\n\r\n"
    prepared = wire.prepare(
        "PUT",
        BUCKET,
        "chunked",
        headers={**headers, "Content-Encoding": "aws-chunked"},
        body=body,
        payload_hash="STREAMING-UNSIGNED-PAYLOAD-TRAILER",
    )
    reply = _no_500(wire.send(prepared))
    assert reply.status == 400, reply.body[:300]


@pytest.mark.parametrize(
    "value",
    [
        "bytes=0-\u00b2",
        "bytes=\u00b2-",
        "bytes=-\u00b2",
        "bytes=0-" + "9" * 5000,
        "bytes=" + "9" * 5000 + "-",
        "bytes=-" + "9" * 5000,
    ],
    ids=["end-superscript", "start-superscript", "suffix-superscript", "end-5000",
         "start-5000", "suffix-5000"],
)  # fmt: skip
def test_s3_range_numbers_never_500(wire: WireClient, value: str) -> None:
    reply = _no_500(wire.get_object(BUCKET, "fixed", range=value))
    assert reply.status in (200, 206, 416), reply.status
    if value.startswith("bytes=0-9"):  # a last byte past the end: the whole object from 0
        assert (reply.status, reply.body) == (206, BODY)
    if value.startswith("bytes=99"):
        assert reply.status == 416


@pytest.mark.parametrize("name", ["If-Modified-Since", "If-Unmodified-Since"])
def test_s3_http_date_in_year_10_to_20_never_500(wire: WireClient, name: str) -> None:
    value = "Sun, 06 Nov 100000000000000000000 08:49:37 GMT"
    reply = _no_500(wire.get_object(BUCKET, "fixed", headers={name: value}))
    assert reply.status == 200  # an unparseable date: the condition is ignored (RFC 9110)


def _lifecycle(days: str, element: str = "Expiration") -> bytes:
    inner = f"<Days>{days}</Days>" if element == "Expiration" else (
        f"<DaysAfterInitiation>{days}</DaysAfterInitiation>")  # fmt: skip
    rule = "<ID>r</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>"
    return (
        f"<LifecycleConfiguration><Rule>{rule}<{element}>{inner}</{element}></Rule>"
        "</LifecycleConfiguration>"
    ).encode()


@pytest.mark.parametrize("element", ["Expiration", "AbortIncompleteMultipartUpload"])
@pytest.mark.parametrize(
    "days",
    [*(v for k, v in NUMBERS.items() if k != "space"), "1" * 401, "2147483648", "0"],
    ids=[*(k for k in NUMBERS if k != "space"), "digits-401", "2-to-31", "zero"],
)
def test_s3_lifecycle_days_is_a_bounded_positive_integer(
    wire: WireClient, element: str, days: str
) -> None:
    """Row MEDIUM 2: a 401-digit Days was stored, then stopped every bucket's lifecycle."""
    before = _no_500(wire.request("GET", BUCKET, query=[("lifecycle", None)])).body
    body = _lifecycle(days, element)
    _invalid(wire.request("PUT", BUCKET, query=[("lifecycle", None)], body=body))
    after = _no_500(wire.request("GET", BUCKET, query=[("lifecycle", None)])).body
    assert after == before, "a refused configuration was stored"


def test_s3_lifecycle_largest_days_is_taken(wire: WireClient) -> None:
    body = _lifecycle("2147483647")
    wire.request("PUT", BUCKET, query=[("lifecycle", None)], body=body).assert_ok()
    stored = wire.request("GET", BUCKET, query=[("lifecycle", None)]).assert_ok()
    assert b"<Days>2147483647</Days>" in stored.body


# -- S3: keys and listing parameters XML cannot carry ----------------------------------------


@pytest.mark.parametrize("key", ["a\x01b", "a\x00", "a\rb", "a\x1f", "a\ufffe"])
def test_s3_keys_xml_cannot_carry_are_refused_at_write(wire: WireClient, key: str) -> None:
    """A raw control character in a listed `<Key>` made the page unparseable
    (docs/reference-choices.md "Keys an XML page can carry")."""
    _invalid(wire.put_object(BUCKET, key, BODY))
    _invalid(wire.request("POST", BUCKET, key, query=[("uploads", None)]))
    listed = wire.list_objects_v2(BUCKET).assert_ok()
    ET.fromstring(listed.body)  # still XML
    assert b"<Key>fixed</Key>" in listed.body


@pytest.mark.parametrize("key", ["tab\there", "line\nfeed"])
def test_s3_keys_with_tab_and_lf_list_back_unchanged(wire: WireClient, key: str) -> None:
    wire.put_object(BUCKET, key, BODY).assert_ok()
    listed = wire.list_objects_v2(BUCKET, prefix=key[:3]).assert_ok()
    root = ET.fromstring(listed.body)
    keys = [node.text for node in root.iter() if node.tag.endswith("}Key") or node.tag == "Key"]
    assert keys == [key]
    wire.request("DELETE", BUCKET, key).assert_ok()


@pytest.mark.parametrize("param", ["prefix", "delimiter", "start-after"])
def test_s3_listing_echo_without_encoding_stays_xml(wire: WireClient, param: str) -> None:
    """`prefix=a%00` without encoding-type echoed a NUL into `<Prefix>`."""
    _invalid(wire.list_objects_v2(BUCKET, **{param.replace("-", "_"): "a\x00"}))
    encoded = wire.list_objects_v2(
        BUCKET, encoding_type="url", **{param.replace("-", "_"): "a\x00"}
    )
    ET.fromstring(encoded.assert_ok().body)


@pytest.mark.parametrize("last", ["\U0010ffff", "\ud7ff"], ids=["U+10FFFF", "U+D7FF"])
def test_s3_delimiter_at_the_top_of_unicode(ref: RefProcess, last: str) -> None:
    """The listing restarted after a common prefix at `chr(ord(last) + 1)`: past U+10FFFF
    that is a ValueError; after U+D7FF a surrogate no store can compare."""
    s3 = ref.boto()
    bucket = "battery-delim-" + ("top" if last == "\U0010ffff" else "d7ff")
    s3.create_bucket(Bucket=bucket)
    for key in ("p" + last + "x", "p" + last + "y", "p" + last, "q"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"1")
    page = s3.list_objects_v2(Bucket=bucket, Delimiter=last)
    assert [p["Prefix"] for p in page.get("CommonPrefixes", [])] == ["p" + last]
    assert [o["Key"] for o in page.get("Contents", [])] == ["q"]
    page = s3.list_objects_v2(Bucket=bucket, Delimiter=last, MaxKeys=1)
    assert page["IsTruncated"] is True
    token = page["NextContinuationToken"]
    rest = s3.list_objects_v2(Bucket=bucket, Delimiter=last, ContinuationToken=token)
    assert [o["Key"] for o in rest.get("Contents", [])] == ["q"]
    only = s3.list_objects_v2(Bucket=bucket, Delimiter=last, Prefix="p")
    assert [p["Prefix"] for p in only.get("CommonPrefixes", [])] == ["p" + last]
    assert only["IsTruncated"] is False and not only.get("Contents")


# -- management API: names, cursors, per_page, finite JSON -----------------------------------


def _mgmt(method: str, url: str, headers: dict[str, str], body: Any = None) -> requests.Response:
    data = body if isinstance(body, str | bytes) or body is None else None
    json_body = None if data is not None or body is None else body
    reply = requests.request(method, url, headers=headers, data=data, json=json_body,
                             timeout=TIMEOUT)  # fmt: skip
    assert reply.status_code < 500, f"{method} {url}: {reply.status_code} {reply.text[:300]}"
    return reply


def _refused(reply: requests.Response, pointer: str | None = None) -> dict[str, Any]:
    assert reply.status_code == 400, reply.text[:300]
    document: dict[str, Any] = reply.json()
    assert document["success"] is False and document["errors"], document
    if pointer is not None:
        assert document["errors"][0].get("source", {}).get("pointer") == pointer, document
    return document


@pytest.mark.parametrize("name", sorted(NUMBERS))
@pytest.mark.parametrize("param", ["cursor", "per_page"])
def test_mgmt_audit_cursor_and_per_page(mgmt: dict[str, Any], param: str, name: str) -> None:
    url = f"{mgmt['base']}/r2/audit"
    reply = requests.get(url, params={param: NUMBERS[name]}, headers=mgmt["headers"],
                         timeout=TIMEOUT)  # fmt: skip
    assert reply.status_code < 500, reply.text[:300]
    _refused(reply, f"/{param}")


def test_mgmt_audit_cursor_past_64_bits(mgmt: dict[str, Any]) -> None:
    url = f"{mgmt['base']}/r2/audit"
    reply = requests.get(url, params={"cursor": "9" * 20}, headers=mgmt["headers"],
                         timeout=TIMEOUT)  # fmt: skip
    _refused(reply)


@pytest.mark.parametrize("name", sorted(NUMBERS))
def test_mgmt_bucket_list_per_page(mgmt: dict[str, Any], name: str) -> None:
    reply = requests.get(f"{mgmt['base']}/r2/buckets", params={"per_page": NUMBERS[name]},
                         headers=mgmt["headers"], timeout=TIMEOUT)  # fmt: skip
    assert reply.status_code < 500, reply.text[:300]
    _refused(reply, "/per_page")


@pytest.mark.parametrize("name", ["abc\n", "abc\r\n", "\nabc", "abc\x00"])
def test_mgmt_bucket_name_is_checked_whole(mgmt: dict[str, Any], name: str) -> None:
    """`re.match("...$")` took `abc\\n`: `$` also matches before a trailing newline."""
    url = f"{mgmt['base']}/r2/buckets"
    _refused(_mgmt("POST", url, mgmt["headers"], {"name": name}), "/name")
    listed = _mgmt("GET", url, mgmt["headers"]).json()["result"]["buckets"]
    assert all("\n" not in b["name"] and "\x00" not in b["name"] for b in listed), listed


@pytest.fixture(scope="module")
def domain_bucket(wire: WireClient) -> str:
    wire.create_bucket("battery-domains").assert_ok()
    return "battery-domains"


@pytest.mark.parametrize(
    "domain",
    ["d.example.com\n", "d.example.com\r\n", "127.0.0.1", "10.0.0.300", "1.2.3.4.5", "x.123"],
)
def test_mgmt_custom_domain_is_a_host_name(
    mgmt: dict[str, Any], domain_bucket: str, domain: str
) -> None:
    url = f"{mgmt['base']}/r2/buckets/{domain_bucket}/domains/custom"
    _refused(_mgmt("POST", url, mgmt["headers"], {"domain": domain, "enabled": True}), "/domain")
    listed = _mgmt("GET", url, mgmt["headers"]).json()["result"]["domains"]
    assert [d["domain"] for d in listed if d["domain"].strip() != d["domain"]] == []
    assert all(d["domain"] != domain.strip() for d in listed), listed


@pytest.mark.parametrize(
    "body",
    [
        '{"domain": "z.battery.example", "enabled": true, "zone_id": 1e999}',
        '{"domain": "z.battery.example", "enabled": true, "zone_id": -1e999}',
        '{"domain": "z.battery.example", "enabled": true, "zone_id": 1' + "0" * 400 + "}",
        '{"domain": "z.battery.example", "enabled": true, "zone_id": 12}',
        '{"domain": "z.battery.example", "enabled": true, "zone_id": ["a"]}',
    ],
    ids=["inf", "minus-inf", "400-digits", "number", "array"],
)
def test_mgmt_custom_domain_zone_id_never_stored_unservable(
    mgmt: dict[str, Any], domain_bucket: str, body: str
) -> None:
    """Row MEDIUM 3: `zone_id: 1e999` answered 500 but was stored; the domain list and the audit
    page then answered 500 for good."""
    url = f"{mgmt['base']}/r2/buckets/{domain_bucket}/domains/custom"
    reply = _mgmt("POST", url, {**mgmt["headers"], "Content-Type": "application/json"}, body)
    assert reply.status_code == 400, reply.text[:300]
    assert _mgmt("GET", url, mgmt["headers"]).status_code == 200
    assert _mgmt("GET", f"{url}/z.battery.example", mgmt["headers"]).status_code == 404
    audit = _mgmt("GET", f"{mgmt['base']}/r2/audit", mgmt["headers"])
    assert audit.status_code == 200, audit.text[:300]


INFINITE_RULESETS = [
    '{"rules": [{"action": "log_custom_field", "expression": "true", "action_parameters": '
    '{"request_fields": [{"name": "x"}], "weight": 1e999}}]}',
    '{"rules": [{"action": "log_custom_field", "expression": "true", "action_parameters": '
    '{"request_fields": [{"name": "x"}], "weight": 1' + "0" * 400 + "}}]}",
]


@pytest.mark.parametrize("body", INFINITE_RULESETS, ids=["inf", "400-digits"])
def test_rules_action_parameters_never_store_infinity(rules: dict[str, Any], body: str) -> None:
    """Row MEDIUM 3: the ruleset was stored with an Infinity and then answered 500 for good."""
    url = f"{rules['base']}/rulesets/phases/http_log_custom_fields/entrypoint"
    headers = {**rules["headers"], "Content-Type": "application/json"}
    reply = _mgmt("PUT", url, headers, body)
    assert reply.status_code == 400 and reply.json()["errors"][0]["code"] == 6007, reply.text
    after = _mgmt("GET", url, rules["headers"])
    assert after.status_code in (200, 404), after.text[:300]


@pytest.mark.parametrize("rule_id", [[1], {"a": 1}, 7, True], ids=["list", "object", "int", "bool"])
def test_rules_rule_id_of_the_wrong_type(rules: dict[str, Any], rule_id: Any) -> None:
    """`"id": [1]` was a 500 (an unhashable id)."""
    url = f"{rules['base']}/rulesets/phases/http_log_custom_fields/entrypoint"
    rule = {"id": rule_id, "action": "log_custom_field", "expression": "true",
            "action_parameters": {"request_fields": [{"name": "x"}]}}  # fmt: skip
    _refused(_mgmt("PUT", url, rules["headers"], {"rules": [rule]}), "/rules/0/id")


# -- gateway: ids and params that are not finite ---------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '{"jsonrpc":"2.0","id":1e999,"method":"eth_chainId"}',
        '{"jsonrpc":"2.0","id":-1e999,"method":"eth_chainId"}',
        '{"jsonrpc":"2.0","id":1' + "0" * 400 + ',"method":"eth_chainId"}',
        '[{"jsonrpc":"2.0","id":1e999,"method":"eth_chainId"}]',
        '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[1e999,"latest"]}',
    ],
    ids=["id-inf", "id-minus-inf", "id-400-digits", "batch-id-inf", "param-inf"],
)
def test_gateway_non_finite_numbers_are_parse_errors(ref: RefProcess, body: str) -> None:
    """Row MEDIUM 3: an `id` of 1e999 was executed and its answer lost (no JSON has Infinity)."""
    url = ref.surface("gateway")["url"] + "/v1/sepolia"
    reply = requests.post(url, data=body, headers={"Content-Type": "application/json"},
                          timeout=TIMEOUT)  # fmt: skip
    assert reply.status_code == 200, reply.text[:300]
    document = reply.json()
    assert document["error"]["code"] == -32700 and document["id"] is None, document


def test_gateway_long_but_finite_id_is_echoed(ref: RefProcess) -> None:
    url = ref.surface("gateway")["url"] + "/v1/sepolia"
    body = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"net_version"}'
    reply = requests.post(url, data=body, headers={"Content-Type": "application/json"},
                          timeout=TIMEOUT)  # fmt: skip
    assert reply.json()["id"] == 12345678901234567890, reply.text


# -- bindings bridge ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bridge(ref: RefProcess) -> dict[str, Any]:
    surface = ref.surface("bindings")
    return {"url": surface["url"] + "/bridge",
            "auth": {"Authorization": f"Bearer {surface.get('token')}"}}  # fmt: skip


def _bridge(bridge: dict[str, Any], op: str, args: dict[str, Any]) -> Any:
    # the bridge's bound bucket: the bridge never creates another (docs/bindings-bridge.md)
    doc = {"op": op, "bucket": "conformance-bindings", "args": args}
    reply = requests.post(bridge["url"], json=doc, headers=bridge["auth"], timeout=TIMEOUT)
    assert reply.status_code < 500, f"{op}: {reply.status_code} {reply.text[:300]}"
    return reply.json()


@pytest.mark.parametrize(
    "part",
    [{"partNumber": "x", "etag": "e"}, {"partNumber": [1], "etag": "e"}, {"partNumber": 1.5,
     "etag": "e"}, {"partNumber": None, "etag": "e"}, {"partNumber": 1, "etag": 7}, "not-a-part",
     {"partNumber": 10**30, "etag": "e"}],
    ids=["string", "list", "float", "null", "etag-int", "not-object", "huge"],
)  # fmt: skip
def test_bindings_complete_with_a_bad_part_number(bridge: dict[str, Any], part: Any) -> None:
    created = _bridge(bridge, "createMultipartUpload", {"key": "mp"})["result"]
    value = base64.b64encode(b"part").decode()
    _bridge(bridge, "uploadPart", {"key": "mp", "uploadId": created["uploadId"],
                                   "partNumber": 1, "value": value})  # fmt: skip
    answer = _bridge(bridge, "completeMultipartUpload",
                     {"key": "mp", "uploadId": created["uploadId"], "parts": [part]})  # fmt: skip
    assert answer.get("error", {}).get("name") == "TypeError", answer


@pytest.mark.parametrize("key", ["a\x01b", "a\rb"])
def test_bindings_keys_xml_cannot_carry_are_refused(bridge: dict[str, Any], key: str) -> None:
    value = base64.b64encode(b"x").decode()
    answer = _bridge(bridge, "put", {"key": key, "value": value})
    assert "10020" in answer.get("error", {}).get("message", ""), answer


# -- lifecycle: one bucket's bad rules never stop the others ---------------------------------


def test_lifecycle_pass_isolates_a_bucket_whose_rules_fail(launch: Any, tmp_path: Any) -> None:
    """Row MEDIUM 2: a rule stored with a 401-digit Days (accepted before this round, so it
    may sit in a data dir) raised OverflowError in the periodic pass, which then stopped
    applying every bucket after it, and the clock endpoint answered 500."""
    import sqlite3

    from conformance.clients.mgmt import MgmtClient

    data_dir = tmp_path / "data"
    ref = launch(data_dir=data_dir)
    s3 = ref.boto()
    rule = {"ID": "r", "Filter": {"Prefix": ""}, "Status": "Enabled", "Expiration": {"Days": 1}}
    for name in ("lc-bad", "lc-good"):
        s3.create_bucket(Bucket=name)
        s3.put_object(Bucket=name, Key="old", Body=b"1")
    for name in ("lc-bad", "lc-good"):  # lc-bad's rules first in the pass
        s3.put_bucket_lifecycle_configuration(Bucket=name, LifecycleConfiguration={"Rules": [rule]})
    ref.stop()
    (db_path,) = data_dir.rglob("meta.sqlite3")
    with sqlite3.connect(db_path) as db:
        (body,) = db.execute(
            "SELECT body FROM bucket_configs WHERE bucket='lc-bad' AND kind='lifecycle'"
        ).fetchone()
        planted = body.replace('"expiration_days": 1', '"expiration_days": 1' + "0" * 400)
        assert planted != body, body
        db.execute(
            "UPDATE bucket_configs SET body=? WHERE bucket='lc-bad' AND kind='lifecycle'",
            (planted,),
        )
    ref = launch(data_dir=data_dir)
    mgmt = MgmtClient.from_surface(ref.ready["surfaces"]["mgmt"])
    reply = mgmt.advance_clock(3 * 86400)
    assert reply.status == 200, reply.text[:300]
    s3 = ref.boto()
    assert "Contents" not in s3.list_objects_v2(Bucket="lc-good"), "lc-good's rule was not applied"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="lc-bad")["Contents"]] == ["old"]
