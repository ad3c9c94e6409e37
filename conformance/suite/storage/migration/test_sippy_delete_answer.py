"""DELETE of the migration configuration answers with migration off.

The provider's R2 API (Disable Sippy) documents the answer's result as `{enabled}` where
`enabled` is optional and, when given, the literal false; the test asks only that: an answer
that names `enabled` says false.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.suite.setup_check import require_ok
from conformance.suite.storage.migration.support import OFFLINE_SOURCE, config_for


@pytest.mark.rule("storage.migration.delete-answer")
def test_delete_answers_migration_off(mgmt: Any, bucket: str, as_of: Any) -> None:
    put = mgmt.put_sippy(bucket, config_for(as_of, OFFLINE_SOURCE, "ec-source-off"))
    require_ok(put, "the PUT of a configuration (storage.migration.put-delete)")
    reply = mgmt.delete_sippy(bucket)
    result = reply.assert_envelope_ok()
    if isinstance(result, dict) and "enabled" in result:
        assert result["enabled"] is False, f"DELETE answered {result}: {reply.describe()}"
