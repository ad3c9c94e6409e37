"""Migration (sippy) for real: a moto server is the source; the reference copies on first read."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from botocore.config import Config
from helpers.moto_source import moto_server, stop
from helpers.suite_runner import rule_status, run_suite

from conformance.clients.mgmt import MgmtClient
from conformance.clients.public import CustomDomains

pytest.importorskip("moto", reason="moto[server] is the migration source of these tests")


@pytest.fixture
def moto() -> Iterator[tuple[str, Any]]:
    with moto_server() as started:
        yield started


def source_client(endpoint: str) -> Any:
    return boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
        aws_secret_access_key="testing", config=Config(s3={"addressing_style": "path"}),
    )  # fmt: skip


def sippy_config(endpoint: str, bucket: str) -> dict[str, Any]:
    return {
        "source": {"provider": "aws", "bucket": bucket, "region": "us-east-1",
                   "accessKeyId": "testing", "secretAccessKey": "testing", "endpoint": endpoint},
        "destination": {"provider": "r2", "accessKeyId": "d", "secretAccessKey": "d"},
    }  # fmt: skip


@pytest.mark.slow
def test_first_read_copies_then_served_without_source(
    launch: Callable[..., Any], make_boto: Callable[..., Any], moto: tuple[str, Any]
) -> None:
    """S3 and public reads fetch from moto once; with moto stopped both still serve the object."""
    endpoint, process = moto
    ref = launch()
    s3 = make_boto(ref.s3)
    mgmt = MgmtClient.from_surface(ref.ready["surfaces"]["mgmt"])
    source = source_client(endpoint)
    source.create_bucket(Bucket="legacy")
    big = bytes(range(256)) * 12_000  # ~3 MiB: read in several chunks
    source.put_object(Bucket="legacy", Key="dir/big.bin", Body=big, Metadata={"origin": "moto"})
    source.put_object(Bucket="legacy", Key="page.html", Body=b"<p>hi</p>", ContentType="text/html")
    s3.create_bucket(Bucket="public")
    domain = "legacy-site.public.example"  # the public entrypoint serves it through a domain
    CustomDomains(ref.ready["surfaces"]["mgmt"]).create("public", domain).assert_envelope_ok()
    mgmt.put_sippy("public", sippy_config(endpoint, "legacy")).assert_envelope_ok()
    mgmt.validate_sippy("public").assert_envelope_ok(200)

    got = s3.get_object(Bucket="public", Key="dir/big.bin")
    assert got["Body"].read() == big
    assert got["Metadata"] == {"origin": "moto"}
    public = requests.get(
        ref.ready["surfaces"]["public"]["url"] + "/page.html", headers={"Host": domain}, timeout=10
    )
    assert public.status_code == 200 and public.content == b"<p>hi</p>"
    assert public.headers["content-type"].startswith("text/html")

    stop(process)
    assert s3.get_object(Bucket="public", Key="dir/big.bin")["Body"].read() == big
    public = requests.get(
        ref.ready["surfaces"]["public"]["url"] + "/page.html", headers={"Host": domain}, timeout=10
    )
    assert public.status_code == 200 and public.content == b"<p>hi</p>"
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="public")["Contents"]]
    assert keys == ["dir/big.bin", "page.html"]
    missing = requests.get(
        ref.ready["surfaces"]["public"]["url"] + "/nope", headers={"Host": domain}, timeout=10
    )
    assert missing.status_code == 404  # source gone: a miss is a miss, not a 5xx


def test_without_configuration_a_miss_is_404(
    launch: Callable[..., Any], make_boto: Callable[..., Any], moto: tuple[str, Any]
) -> None:
    endpoint, _ = moto
    ref = launch()
    s3 = make_boto(ref.s3)
    source_client(endpoint).create_bucket(Bucket="legacy")
    source_client(endpoint).put_object(Bucket="legacy", Key="k", Body=b"x")
    s3.create_bucket(Bucket="plain")
    with pytest.raises(s3.exceptions.NoSuchKey):
        s3.get_object(Bucket="plain", Key="k")


@pytest.mark.slow
def test_suite_migration_rules_pass_with_moto(tmp_path: Path, moto: tuple[str, Any]) -> None:
    """The suite's migration tests run (not N/A) and pass when the reference names a source."""
    endpoint, _ = moto
    rules = [
        "storage.migration.copies-objects",
        "storage.migration.stored-after-fetch",
        "storage.migration.validate",
        "storage.migration.validate-refuses-bad-source",
    ]
    document = run_suite(tmp_path, rules=rules,
                         reference_profile={"migration_source_endpoint": endpoint})  # fmt: skip
    for rule in rules:
        assert rule_status(document, rule) == "PASS", document["_output"]
