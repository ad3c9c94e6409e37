"""Migration (sippy) configuration: PUT / GET / DELETE, the dated shapes, validate."""

from __future__ import annotations

import pytest

from conformance.suite.setup_check import require
from conformance.suite.storage.migration.support import (
    DESTINATION,
    OFFLINE_SOURCE,
    SHAPE_CHANGE,
    config_for,
    source_bucket,
)


@pytest.mark.rule("storage.migration.put-delete")
def test_put_delete(mgmt, bucket, as_of):
    """PUT sets the configuration and DELETE removes it (observed through GET)."""
    mgmt.put_sippy(bucket, config_for(as_of, OFFLINE_SOURCE, "ec-source")).assert_envelope_ok()
    mgmt.delete_sippy(bucket).assert_envelope_ok()
    after = mgmt.get_sippy(bucket).assert_envelope_ok(200)
    assert after.get("enabled") is not True, f"still enabled after DELETE: {after}"


@pytest.mark.rule("storage.migration.get-config")
def test_get_config(mgmt, bucket, as_of):
    """GET shows no configuration before a PUT and the enabled configuration after it."""
    before = mgmt.get_sippy(bucket).assert_envelope_ok(200)
    assert before.get("enabled") is not True, f"enabled before any PUT: {before}"
    put = mgmt.put_sippy(bucket, config_for(as_of, OFFLINE_SOURCE, "ec-source"))
    require(put.status < 300, f"the PUT (put-delete's rule) answered {put.status}")
    got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
    assert got.get("enabled") is True, f"GET after PUT: {got}"


@pytest.mark.rule("storage.migration.config-shape-changed")
@pytest.mark.parametrize("source_bucket_name", ["ec-source-one", "ec-source-two"])
def test_config_read_back(mgmt, bucket, as_of, source_bucket_name):
    """The configuration read back names the source bucket that was set (either shape)."""
    config = config_for(as_of, OFFLINE_SOURCE, source_bucket_name)
    mgmt.put_sippy(bucket, config).assert_envelope_ok()
    got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
    named = got.get("source", {}).get("bucket") if as_of >= SHAPE_CHANGE else got.get("bucket")
    assert named == source_bucket_name, got


@pytest.mark.rule("storage.migration.config-shape")
def test_config_shape(mgmt, bucket, as_of):
    """The source / destination configuration is accepted and read back (no secrets)."""
    config = config_for(as_of, OFFLINE_SOURCE, "ec-source-shape")
    mgmt.put_sippy(bucket, config).assert_envelope_ok()
    got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
    assert got.get("enabled") is True, got
    source, destination = got.get("source"), got.get("destination")
    assert isinstance(source, dict) and isinstance(destination, dict), got
    assert source.get("provider") == "aws", source
    assert source.get("bucket") == "ec-source-shape", source
    assert source.get("region") == "us-east-1", source
    assert destination.get("provider") == "r2", destination
    assert "secretAccessKey" not in source and "secretAccessKey" not in destination, got


@pytest.mark.rule("storage.migration.config-earlier-shape")
def test_earlier_shape(mgmt, bucket, as_of):
    """Before 2024-02-06 the (reference's documented) flat shape is set and read back."""
    mgmt.put_sippy(bucket, config_for(as_of, OFFLINE_SOURCE, "ec-source-flat")).assert_envelope_ok()
    got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
    assert got == {"enabled": True, "bucket": "ec-source-flat", "region": "us-east-1"}, got


@pytest.mark.rule("storage.migration.earlier-shape-refused")
def test_earlier_shape_refused(mgmt, bucket):
    """From 2024-02-06 the flat shape is refused with 400 and nothing is stored."""
    flat = config_for(SHAPE_CHANGE.replace(year=2023), OFFLINE_SOURCE, "ec-source-flat")
    mgmt.put_sippy(bucket, flat).assert_envelope_error(400)
    assert mgmt.get_sippy(bucket).assert_envelope_ok(200).get("enabled") is not True


@pytest.mark.rule("storage.migration.validate")
@pytest.mark.parametrize("stored", [False, True], ids=["body", "stored"])
def test_validate_accepts_good_source(mgmt, bucket, names, migration_source, as_of, stored):
    """validate accepts a configuration whose source is reachable and has the bucket."""
    name = names.bucket()
    with source_bucket(migration_source, name):
        config = config_for(as_of, migration_source, name)
        if stored:
            mgmt.put_sippy(bucket, config).assert_envelope_ok()
            reply = mgmt.validate_sippy(bucket)
        else:
            reply = mgmt.validate_sippy(bucket, config)
        reply.assert_envelope_ok(200)


@pytest.mark.rule("storage.migration.validate-refuses-bad-source")
def test_validate_refuses_missing_bucket(mgmt, bucket, names, migration_source, as_of):
    """validate refuses a source bucket that does not exist with 400 in the envelope."""
    config = config_for(as_of, migration_source, names.bucket())
    mgmt.validate_sippy(bucket, config).assert_envelope_error(400)


@pytest.mark.rule("storage.migration.validate-refuses-bad-source")
def test_validate_refuses_unreachable_source(mgmt, bucket, as_of):
    """validate refuses a source nothing answers at (decisions: "source reachable") with a 4xx
    failure envelope: an implementer who lets the connection error escape answers 5xx."""
    config = config_for(as_of, OFFLINE_SOURCE, "ec-source-offline")
    reply = mgmt.validate_sippy(bucket, config)
    assert 400 <= reply.status < 500, f"validate of an unreachable source: {reply.status}"
    reply.assert_envelope_error(reply.status)


# --- folded from test_sippy_config_checked.py ---
# Migration configuration exactly in the spec's shape: no extension member at all.
#
# dates.md ("Other facts") gives the source as `{provider, bucket, region, accessKeyId,
# secretAccessKey}`; the suite's other configurations add `endpoint` (so the reference can reach
# a loopback source), which would hide an implementation that requires it.


@pytest.mark.rule("storage.migration.config-shape")
def test_spec_shape_without_endpoint_is_accepted(mgmt, bucket):
    """The spec's source shape, without `endpoint`, is accepted and read back."""
    source = {"provider": "aws", "bucket": "ec-source-plain", "region": "us-east-1",
              "accessKeyId": "ec-src-key", "secretAccessKey": "ec-src-secret"}  # fmt: skip
    mgmt.put_sippy(
        bucket, {"source": source, "destination": dict(DESTINATION)}
    ).assert_envelope_ok()
    try:
        got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
        assert got.get("enabled") is True, got
        assert (got.get("source") or {}).get("bucket") == "ec-source-plain", got
    finally:
        mgmt.delete_sippy(bucket)


# Every source provider and every field of the shape (dates.md "Other facts", item 4: the source
# is aws "(or gcs)"; the destination is {provider: r2, accessKeyId, secretAccessKey}).
GCS_SOURCE = {"provider": "gcs", "bucket": "ec-source-gcs", "clientEmail": "ec@example.invalid",
              "privateKey": "ec-private-key"}  # fmt: skip


@pytest.mark.rule("storage.migration.config-shape")
def test_gcs_source_is_accepted(mgmt, bucket):
    """A gcs source is accepted and read back as gcs with its bucket, its key not echoed."""
    reply = mgmt.put_sippy(bucket, {"source": dict(GCS_SOURCE), "destination": dict(DESTINATION)})
    reply.assert_envelope_ok()
    try:
        got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
        source = got.get("source") or {}
        assert got.get("enabled") is True, got
        assert source.get("provider") == "gcs", got
        assert source.get("bucket") == GCS_SOURCE["bucket"], got
        assert "privateKey" not in source, f"the gcs private key is echoed: {got}"
    finally:
        mgmt.delete_sippy(bucket)


@pytest.mark.rule("storage.migration.config-shape")
def test_destination_access_key_read_back(mgmt, bucket, as_of):
    """The destination read back is r2 with the accessKeyId that was set (never the secret)."""
    mgmt.put_sippy(bucket, config_for(as_of, OFFLINE_SOURCE, "ec-source-dest")).assert_envelope_ok()
    try:
        got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
        destination = got.get("destination") or {}
        assert destination.get("provider") == "r2", got
        assert destination.get("accessKeyId") == DESTINATION["accessKeyId"], got
        assert "secretAccessKey" not in destination, got
    finally:
        mgmt.delete_sippy(bucket)


AWS_SOURCE = {"provider": "aws", "bucket": "ec-source-whole", "region": "us-east-1",
              "accessKeyId": "ec-src-key", "secretAccessKey": "ec-src-secret"}  # fmt: skip
# (which object, which member) left out: the members without which a migration cannot read its
# source or write R2 (docs/decisions.md "An incomplete migration configuration"); region is not
# among them (the provider's schema gives it no default, but a target may infer one)
INCOMPLETE = [
    ("aws", "source", "bucket"),
    ("aws", "source", "accessKeyId"),
    ("aws", "source", "secretAccessKey"),
    ("aws", "destination", "accessKeyId"),
    ("aws", "destination", "secretAccessKey"),
    ("gcs", "source", "bucket"),
    ("gcs", "source", "clientEmail"),
    ("gcs", "source", "privateKey"),
]


@pytest.mark.rule("storage.migration.incomplete-config-refused")
@pytest.mark.parametrize(
    ("provider", "part", "member"), INCOMPLETE, ids=["-".join(case) for case in INCOMPLETE]
)
def test_incomplete_configuration_is_refused(mgmt, bucket, provider, part, member):
    """A configuration without one of the credentials or the source bucket is refused with a
    4xx and nothing is stored: every other member present, so only the completeness check
    can refuse it."""
    config = {
        "source": dict(AWS_SOURCE if provider == "aws" else GCS_SOURCE),
        "destination": dict(DESTINATION),
    }
    del config[part][member]
    reply = mgmt.put_sippy(bucket, config)
    try:
        assert 400 <= reply.status < 500, f"{part} without {member}: {reply.describe()}"
        got = mgmt.get_sippy(bucket).assert_envelope_ok(200)
        assert got.get("enabled") is not True, f"{part} without {member} was stored: {got}"
    finally:
        mgmt.delete_sippy(bucket)
