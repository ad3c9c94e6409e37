"""Migration configuration exactly in the spec's shape: no extension member at all.

dates.md ("Other facts") gives the source as `{provider, bucket, region, accessKeyId,
secretAccessKey}`; the suite's other configurations add `endpoint` (so the reference can reach
a loopback source), which would hide an implementation that requires it.
"""

from __future__ import annotations

import pytest

from conformance.suite.storage.sippy_support import DESTINATION


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
