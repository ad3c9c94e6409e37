"""GET of one custom domain on the management API reads back the domain just linked.

The spec names custom domains as the way public buckets are reached; the provider's R2 API
documents the domain's own GET (`Get Custom Domain Settings`,
`/accounts/{account_id}/r2/buckets/{bucket_name}/domains/custom/{domain}`), answering the domain
and whether the bucket is publicly accessible there. The `public` fixture links the domain
enabled, so the answer names it and says enabled true.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.public import CustomDomains


@pytest.mark.rule("storage.public.domain-get")
def test_linked_domain_is_read_back(public: Any, target: Any) -> None:
    domains = CustomDomains(target.surface("mgmt"))
    reply = domains.request("GET", domains.path(public.bucket, public.domain))
    result = reply.assert_envelope_ok(200)
    assert isinstance(result, dict), reply.describe()
    assert str(result.get("domain", "")).lower() == public.domain.lower(), reply.describe()
    assert result.get("enabled") is True, reply.describe()
