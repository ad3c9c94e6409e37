"""Lifecycles in the reference: XML parsing, due dates, application on the moving clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from conformance.clients.mgmt import MgmtClient
from reference_impl.services.lifecycle import applier, config
from reference_impl.wire.s3.errors import S3Error

DAY = 86400


def xml(rule: str) -> bytes:
    return f"<LifecycleConfiguration><Rule>{rule}</Rule></LifecycleConfiguration>".encode()


def test_parse_and_render_round_trip() -> None:
    body = xml("<ID>a</ID><Prefix>p/</Prefix><Status>Enabled</Status>"
               "<Expiration><Date>2030-01-01T00:00:00Z</Date></Expiration>")  # fmt: skip
    rules = config.parse(body)
    assert rules[0]["prefix"] == "p/" and rules[0]["expiration_date"].startswith("2030-01-01")
    assert config.parse(config.render(rules)) == rules


@pytest.mark.parametrize(
    ("rule", "code"),
    [
        ("<Status>On</Status><Expiration><Days>1</Days></Expiration>", "MalformedXML"),
        ("<Status>Enabled</Status><Expiration><Days>0</Days></Expiration>", "InvalidArgument"),
        (
            "<Status>Enabled</Status><Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date>"
            "</Expiration>",
            "MalformedXML",
        ),
        (
            "<Status>Enabled</Status><Expiration><Date>2030-01-01T10:00:00Z</Date></Expiration>",
            "InvalidArgument",
        ),
        ("<Status>Enabled</Status>", "MalformedXML"),
        ("<Status>Enabled</Status><Transition><Days>1</Days></Transition>", "MalformedXML"),
    ],
)
def test_parse_refusals(rule: str, code: str) -> None:
    with pytest.raises(S3Error) as caught:
        config.parse(xml(rule))
    assert caught.value.code == code


def test_due_is_next_midnight() -> None:
    start = dt.datetime(2024, 1, 1, 15, 0, tzinfo=dt.UTC).timestamp()
    assert applier.due(start, 1) == dt.datetime(2024, 1, 3, tzinfo=dt.UTC).timestamp()


def test_date_rule_and_disabled_rule(
    launch: Callable[..., Any], make_boto: Callable[..., Any]
) -> None:
    ref = launch()
    s3 = make_boto(ref.s3)
    mgmt = MgmtClient.from_surface(ref.ready["surfaces"]["mgmt"])
    s3.create_bucket(Bucket="lcy")
    s3.put_object(Bucket="lcy", Key="a/1", Body=b"1")
    s3.put_object(Bucket="lcy", Key="b/1", Body=b"1")
    tomorrow = (dt.datetime.now(dt.UTC) + dt.timedelta(days=2)).strftime("%Y-%m-%dT00:00:00Z")
    s3.put_bucket_lifecycle_configuration(Bucket="lcy", LifecycleConfiguration={"Rules": [
        {"ID": "a", "Filter": {"Prefix": "a/"}, "Status": "Enabled",
         "Expiration": {"Date": tomorrow}},
        {"ID": "b", "Filter": {"Prefix": "b/"}, "Status": "Disabled",
         "Expiration": {"Days": 1}},
    ]})  # fmt: skip
    applied = mgmt.advance_clock(3 * DAY, "lcy").assert_envelope_ok()["applied"]
    assert applied == {"expired": 1, "aborted": 0}
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="lcy")["Contents"]]
    assert keys == ["b/1"]
    s3.delete_bucket_lifecycle(Bucket="lcy")
    with pytest.raises(ClientError):
        s3.get_bucket_lifecycle_configuration(Bucket="lcy")


def test_before_lifecycles_existed(launch: Callable[..., Any], make_boto: Any) -> None:
    ref = launch("--behaviour-date", "2023-03-15")
    s3 = make_boto(ref.s3)
    s3.create_bucket(Bucket="old")
    with pytest.raises(ClientError) as caught:
        s3.get_bucket_lifecycle_configuration(Bucket="old")
    assert caught.value.response["Error"]["Code"] == "NoSuchLifecycleConfiguration"
    with pytest.raises(ClientError) as caught:
        s3.put_bucket_lifecycle_configuration(Bucket="old", LifecycleConfiguration={"Rules": [
            {"ID": "x", "Filter": {"Prefix": ""}, "Status": "Enabled",
             "Expiration": {"Days": 1}}]})  # fmt: skip
    assert caught.value.response["Error"]["Code"] == "NotImplemented"
