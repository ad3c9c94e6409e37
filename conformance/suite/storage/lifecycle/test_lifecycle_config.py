"""Object lifecycles: Put/Get/DeleteBucketLifecycleConfiguration, and (reference-only) the
rules applied on the reference's movable clock, moved for the test's own bucket only."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

DAY = 86400
LIFECYCLE = [("lifecycle", None)]


def lifecycle_xml(*rules: str) -> bytes:
    return ("<LifecycleConfiguration>" + "".join(rules) + "</LifecycleConfiguration>").encode()


def expire_rule(rule_id: str, prefix: str, days: int) -> str:
    return (
        f"<Rule><ID>{rule_id}</ID><Filter><Prefix>{prefix}</Prefix></Filter>"
        f"<Status>Enabled</Status><Expiration><Days>{days}</Days></Expiration></Rule>"
    )


def abort_rule(rule_id: str, days: int) -> str:
    return (f"<Rule><ID>{rule_id}</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>"
            f"<AbortIncompleteMultipartUpload><DaysAfterInitiation>{days}"
            "</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>")  # fmt: skip


def put_lifecycle(s3, bucket: str, body: bytes):
    import base64
    import hashlib

    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()  # S3 requires Content-MD5 here
    return s3.wire.request("PUT", bucket, query=LIFECYCLE, body=body,
                           headers={"Content-MD5": md5})  # fmt: skip


def _text(node: ET.Element, path: str) -> str | None:
    """Text at a slash path of element names, namespaces ignored."""
    current = node
    for name in path.split("/"):
        child = next((c for c in current if c.tag.split("}")[-1] == name), None)
        if child is None:
            return None
        current = child
    return current.text


@pytest.mark.rule("storage.lifecycle.put-get")
def test_put_then_get_returns_rules(s3, bucket):
    """The rules put are returned: ids, prefix, expiration days, abort days."""
    body = lifecycle_xml(expire_rule("expire-logs", "logs/", 30), abort_rule("abort-stale", 7))
    put = put_lifecycle(s3, bucket, body)
    # S3's PutBucketLifecycleConfiguration answers 200 (its API reference's response syntax)
    assert put.status == 200, f"PutBucketLifecycleConfiguration: {put.describe()}"
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = reply.xml
    assert root is not None and root.tag.endswith("LifecycleConfiguration"), reply.body[:300]
    by_id = {}
    for rule in root:
        fields = {child.tag.split("}")[-1]: child for child in rule}
        by_id[fields["ID"].text] = rule
    assert set(by_id) == {"expire-logs", "abort-stale"}, reply.body[:600]
    expire, abort = by_id["expire-logs"], by_id["abort-stale"]
    assert _text(expire, "Status") == "Enabled", reply.body[:600]
    assert _text(expire, "Expiration/Days") == "30", reply.body[:600]
    assert "logs/" in (_text(expire, "Filter/Prefix"), _text(expire, "Prefix")), reply.body[:600]
    assert _text(abort, "AbortIncompleteMultipartUpload/DaysAfterInitiation") == "7"


@pytest.mark.rule("storage.lifecycle.default-abort-multipart")
def test_new_bucket_has_default_abort_rule(s3, bucket):
    """A new bucket's lifecycle is one enabled rule over every key aborting uploads after 7 days."""
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE)
    assert reply.status == 200, f"new bucket: {reply.status} {reply.body[:300]!r}"
    root = reply.xml
    assert root is not None and root.tag.endswith("LifecycleConfiguration"), reply.body[:300]
    rules = [node for node in root if node.tag.split("}")[-1] == "Rule"]
    aborts = [
        rule
        for rule in rules
        if _text(rule, "AbortIncompleteMultipartUpload/DaysAfterInitiation") == "7"
        and _text(rule, "Status") == "Enabled"
        and not (_text(rule, "Filter/Prefix") or _text(rule, "Prefix"))
    ]
    assert aborts, f"no enabled whole-bucket 7-day abort rule: {reply.body[:600]!r}"


@pytest.mark.rule("storage.lifecycle.delete")
def test_delete_then_404(s3, bucket):
    """After DeleteBucketLifecycleConfiguration the GET answers 404 NoSuchLifecycleConfiguration."""
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule("r", "", 1))).assert_ok()
    reply = s3.wire.request("DELETE", bucket, query=LIFECYCLE)
    assert reply.status in (200, 204), f"DeleteBucketLifecycleConfiguration: {reply.status}"
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE)
    reply.assert_error(404, "NoSuchLifecycleConfiguration")


@pytest.mark.rule("storage.lifecycle.expiration-applied-reference")
def test_expiration_applied_on_clock(s3, mgmt, bucket, names):
    """Objects under the rule's prefix go once the clock passes the days; others stay."""
    old, kept = "old/" + names.key(), "keep/" + names.key()
    for key in (old, kept):
        s3.wire.put_object(bucket, key, b"x").assert_ok()
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule("old", "old/", 1))).assert_ok()
    mgmt.advance_clock(0, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, old).assert_ok()  # not yet: a day has not passed
    mgmt.advance_clock(2 * DAY, bucket).assert_envelope_ok()
    s3.wire.get_object(bucket, old).assert_error(404, "NoSuchKey")
    s3.wire.get_object(bucket, kept).assert_ok()


@pytest.mark.rule("storage.lifecycle.abort-multipart-applied-reference")
def test_abort_incomplete_uploads_on_clock(s3, mgmt, bucket, names):
    """An upload left incomplete is aborted once the clock passes DaysAfterInitiation."""
    key = names.key()
    upload_id = s3.boto.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    query = [("uploadId", upload_id)]
    put_lifecycle(s3, bucket, lifecycle_xml(abort_rule("abort", 1))).assert_ok()
    s3.wire.request("GET", bucket, key, query=query).assert_ok()  # ListParts: still there
    mgmt.advance_clock(2 * DAY, bucket).assert_envelope_ok()
    s3.wire.request("GET", bucket, key, query=query).assert_error(404, "NoSuchUpload")


@pytest.mark.rule("storage.lifecycle.put-get")
@pytest.mark.parametrize("days", [1, 2**30, 2**31 - 1], ids=["one", "2^30", "int32-max"])
def test_days_across_the_integer_range_round_trip(s3, bucket, days):
    """Days is a positive Integer (32-bit in S3's API): the smallest and the largest are kept.

    An implementer may cap Days lower than the type allows; only its top end can tell.
    """
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule("far", "far/", days))).assert_ok()
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = reply.xml
    assert root is not None, reply.body[:300]
    kept = [rule for rule in root if _text(rule, "ID") == "far"]
    assert kept and _text(kept[0], "Expiration/Days") == str(days), reply.body[:600]


PREFIX_FORMS = {
    "filter": "<Filter><Prefix>{p}</Prefix></Filter>",
    "filter-and": "<Filter><And><Prefix>{p}</Prefix></And></Filter>",
    "legacy": "<Prefix>{p}</Prefix>",
}


@pytest.mark.rule("storage.lifecycle.put-get")
@pytest.mark.parametrize("form", list(PREFIX_FORMS))
def test_prefix_in_each_form_is_kept(s3, bucket, form):
    """S3 takes a rule's prefix as <Filter><Prefix>, inside <Filter><And>, or as the legacy
    top-level <Prefix>. A target may refuse a form it does not support (a 4xx); a form it
    accepts keeps the prefix: read back, the rule names `keep/`, never every key."""
    where = PREFIX_FORMS[form].format(p="keep/")
    rule = (
        f"<Rule><ID>form</ID>{where}<Status>Enabled</Status>"
        "<Expiration><Days>30</Days></Expiration></Rule>"
    )
    put = put_lifecycle(s3, bucket, lifecycle_xml(rule))
    if 400 <= put.status < 500:
        return
    assert put.status == 200, f"PutBucketLifecycleConfiguration ({form}): {put.describe()}"
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = reply.xml
    assert root is not None, reply.body[:300]
    kept = [node for node in root if _text(node, "ID") == "form"]
    assert kept, reply.body[:600]
    prefixes = {_text(kept[0], path) for path in ("Filter/Prefix", "Filter/And/Prefix", "Prefix")}
    assert "keep/" in prefixes, f"the {form} prefix was not kept: {reply.body[:600]!r}"


@pytest.mark.rule("storage.lifecycle.put-get")
def test_expiration_date_round_trips(s3, bucket):
    """A rule expiring on a Date (ISO 8601, midnight UTC) is returned with that Date, no Days."""
    import datetime as dt

    rule = (
        "<Rule><ID>dated</ID><Filter><Prefix>dated/</Prefix></Filter><Status>Enabled</Status>"
        "<Expiration><Date>2031-01-01T00:00:00Z</Date></Expiration></Rule>"
    )
    put_lifecycle(s3, bucket, lifecycle_xml(rule)).assert_ok()
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = reply.xml
    assert root is not None, reply.body[:300]
    kept = [node for node in root if _text(node, "ID") == "dated"]
    assert kept, reply.body[:600]
    date = _text(kept[0], "Expiration/Date") or ""
    try:
        moment = dt.datetime.fromisoformat(date.strip().replace("Z", "+00:00"))
    except ValueError:
        message = f"Expiration/Date {date!r} is not ISO 8601: {reply.body[:600]!r}"
        raise AssertionError(message) from None
    assert moment == dt.datetime(2031, 1, 1, tzinfo=dt.UTC), reply.body[:600]
    assert _text(kept[0], "Expiration/Days") is None, reply.body[:600]


@pytest.mark.rule("storage.lifecycle.put-get")
def test_rule_with_both_actions_keeps_both(s3, bucket):
    """One rule holding an Expiration and an AbortIncompleteMultipartUpload comes back with
    both (S3's LifecycleRule: Expiration and AbortIncompleteMultipartUpload are members of the
    same rule, each optional), not only the first action."""
    both = expire_rule("both", "both/", 30).replace(
        "</Expiration>",
        "</Expiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>5"
        "</DaysAfterInitiation></AbortIncompleteMultipartUpload>",
    )
    put_lifecycle(s3, bucket, lifecycle_xml(both)).assert_ok()
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = reply.xml
    assert root is not None, reply.body[:300]
    rules = {_text(node, "ID"): node for node in root}
    assert set(rules) == {"both"}, reply.body[:600]
    assert _text(rules["both"], "Expiration/Days") == "30", reply.body[:600]
    kept = _text(rules["both"], "AbortIncompleteMultipartUpload/DaysAfterInitiation")
    assert kept == "5", reply.body[:600]


@pytest.mark.rule("storage.lifecycle.put-get")
def test_each_rule_keeps_its_status(s3, bucket):
    """A Disabled rule beside an Enabled one comes back Disabled (S3's LifecycleRule Status:
    Enabled or Disabled), each rule its own, not the first rule's."""
    enabled = expire_rule("on", "on/", 3)
    disabled = expire_rule("off", "off/", 4).replace(
        "<Status>Enabled</Status>", "<Status>Disabled</Status>"
    )
    put_lifecycle(s3, bucket, lifecycle_xml(enabled, disabled)).assert_ok()
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = reply.xml
    assert root is not None, reply.body[:300]
    status = {_text(node, "ID"): _text(node, "Status") for node in root}
    assert status == {"on": "Enabled", "off": "Disabled"}, reply.body[:600]


@pytest.mark.rule("storage.lifecycle.put-get")
def test_create_bucket_again_keeps_the_rules(s3, bucket):
    """CreateBucket of a bucket the caller already owns creates nothing: the rules put before
    are still the ones returned. Whether it answers 200 or 409 BucketAlreadyOwnedByYou the spec
    does not say (docs/decisions.md), so either is accepted; an implementer who treats the
    call as a new bucket and seeds the new-bucket defaults loses the owner's rules."""
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule("kept", "kept/", 3))).assert_ok()
    again = s3.wire.create_bucket(bucket)
    assert again.status in (200, 409), f"CreateBucket of an owned bucket: {again.describe()}"
    reply = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = reply.xml
    assert root is not None, reply.body[:300]
    assert [_text(node, "ID") for node in root] == ["kept"], reply.body[:600]
