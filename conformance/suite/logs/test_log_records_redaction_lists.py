"""The redaction option covers every value of a line, also the values of a preserved duplicate.

From the provider's change of 2025-04-18 a rule with `preserve_duplicates` logs every instance
of a repeated header (the records' arrays round accepts any form holding every value: a list,
or one string). The Logpush API configuration page says the option `CVE-2021-44228=true`
"will replace every occurrence of ${ with x{": that is every occurrence in the line, whatever
form a custom field's value takes. One round of its own: one job with the option, one request
header sent on two field lines, each value holding a `${` (hand mutant hm9 HM630: a redaction
that rewrites strings but leaves the values of a list as sent).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.plugin.applicability import NA_PREFIX
from conformance.results import NOT_CHECKED_PREFIX
from conformance.suite.logs.helpers import log_rule
from conformance.suite.logs.log_delivery import REDACTION, Delivered, Traffic, delivered_logs

JOB = "redacted-duplicates"
REPEATED = "x-ec-dup-lookup"
# two occurrences in the second value: every one is replaced (no jndi: a WAF may refuse that)
VALUES = ("first-${a}", "second-${b}-${c}")


@pytest.fixture(scope="module")
def logs(
    rules_api: RulesApiClient, s3: Any, edge: dict[str, Any], run_prefix: str, zone_lock: Any
) -> Iterator[Delivered]:
    rule = log_rule(request=(REPEATED,))
    rule["action_parameters"]["preserve_duplicates"] = True
    jobs = {JOB: "fields=RayID,ClientRequestURI,RequestHeaders&timestamps=rfc3339" + REDACTION}
    traffic = [Traffic("dup", {}, lines=tuple((REPEATED, value) for value in VALUES))]
    url = edge["url"]
    with (
        zone_lock,
        delivered_logs(rules_api, s3, url, run_prefix, [rule], jobs, traffic) as delivered,
    ):
        yield delivered


@pytest.mark.rule("logs.records.cve-2021-44228-redaction")
def test_redaction_covers_every_value_of_a_preserved_duplicate(
    request: pytest.FixtureRequest, in_force: Callable[[str], bool]
) -> None:
    """Both values of the repeated header are logged with every `${` as `x{`, none as sent."""
    if not in_force("logs.records.preserve-duplicates"):
        pytest.skip(f"{NA_PREFIX}preserve_duplicates took effect on 2025-04-18")
    logs: Delivered = request.getfixturevalue("logs")  # after the date check: none before
    entry = logs.entry(JOB, "dup")
    headers = entry.get("RequestHeaders")
    assert isinstance(headers, dict), f"RequestHeaders is not an object: {entry}"
    logged = headers.get(REPEATED)
    assert logged is not None, f"{REPEATED} not logged: {entry}"
    text = logged if isinstance(logged, str) else json.dumps(logged)
    assert "${" not in text, f"{REPEATED} logged as {logged!r}: a `${{` left as sent"
    redacted = [value.replace("${", "x{") for value in VALUES]
    assert redacted[0] in text, f"{REPEATED} logged as {logged!r}; missing {redacted[0]!r}"
    if redacted[1] not in text:  # one instance logged: preserve-duplicates' own rule says so
        one = f"the target logged one instance of {REPEATED} (preserve-duplicates' to judge)"
        pytest.skip(f"{NOT_CHECKED_PREFIX}{one}: no second value here")
