"""Every request carries X-Auth-Email and X-Auth-Key; refusals follow decisions.md (Auth errors).

Missing headers are 9106 without an error_chain; malformed ones are 6003 with the chain naming
the header (6102 email, 6103 key); a well-formed unknown pair is 9103.
"""

from __future__ import annotations

import pytest

from conformance.clients.rules_api import Reply, RulesApiClient

MISSING_HEADERS, INVALID_HEADERS, BAD_EMAIL, BAD_KEY, UNKNOWN_PAIR = 9106, 6003, 6102, 6103, 9103


def _chain_codes(error: dict[str, object]) -> set[object]:
    chain = error.get("error_chain")
    assert isinstance(chain, list) and chain, f"no error_chain in {error}"
    return {item.get("code") for item in chain if isinstance(item, dict)}


def _error(reply: Reply, status: int, code: int) -> dict[str, object]:
    """The error with `code` in an answer with `status`: only what the auth rules state (the
    rest of the failure envelope is logs.envelope.failure-shape's rule)."""
    assert reply.status == status, f"expected HTTP {status}: {reply.describe()}"
    chosen = [e for e in reply.envelope_errors if e.get("code") == code]
    assert chosen, f"no error with code {code}: {reply.describe()}"
    return chosen[0]


def _get_with(rules_api: RulesApiClient, headers: dict[str, str], code: int) -> dict[str, object]:
    reply = rules_api.request("GET", rules_api.zone("/rulesets"), auth_headers=headers)
    return _error(reply, 400, code)


@pytest.mark.rule("logs.auth.missing-headers-refused")
@pytest.mark.parametrize("present", ["none", "email-only", "key-only"])
def test_missing_headers_are_refused(rules_api: RulesApiClient, present: str) -> None:
    """Without one or both headers the API answers 400, code 9106, and no error_chain."""
    headers = {"email-only": {"X-Auth-Email": rules_api.email}}.get(present, {})
    if present == "key-only":
        headers = {"X-Auth-Key": rules_api.api_key}
    error = _get_with(rules_api, headers, MISSING_HEADERS)
    assert not error.get("error_chain"), f"missing headers ({present}) carry a chain: {error}"


@pytest.mark.rule("logs.auth.error-chain-email")
def test_malformed_email_is_refused(rules_api: RulesApiClient) -> None:
    """A malformed X-Auth-Email is 400, code 6003, chain 6102."""
    error = _get_with(
        rules_api,
        {"X-Auth-Email": "not-an-address", "X-Auth-Key": rules_api.api_key},
        INVALID_HEADERS,
    )
    assert BAD_EMAIL in _chain_codes(error), error


@pytest.mark.rule("logs.auth.error-chain-key")
def test_malformed_key_is_refused(rules_api: RulesApiClient) -> None:
    """A malformed X-Auth-Key next to a valid email is 400, code 6003, chain 6103."""
    error = _get_with(
        rules_api, {"X-Auth-Email": rules_api.email, "X-Auth-Key": "not a key!"}, INVALID_HEADERS
    )
    assert BAD_KEY in _chain_codes(error), error


@pytest.mark.rule("logs.auth.unknown-pair-refused")
def test_unknown_credentials_are_refused(rules_api: RulesApiClient, run_prefix: str) -> None:
    """A well-formed but unknown email/key pair is 403, code 9103."""
    key = "f" * 37 if rules_api.api_key != "f" * 37 else "e" * 37
    headers = {"X-Auth-Email": f"{run_prefix}@example.invalid", "X-Auth-Key": key}
    reply = rules_api.request("GET", rules_api.zone("/rulesets"), auth_headers=headers)
    _error(reply, 403, UNKNOWN_PAIR)
