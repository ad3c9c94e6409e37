"""Rules API bodies in the other forms JSON and HTTP allow: escapes, odd strings, chunked.

Clients build the entry point's JSON in more than one way: a serializer may escape every
non-ASCII character (`\\ud83d\\ude00` for one emoji, RFC 8259 section 7), a description may hold
brackets and escaped quotes, and a streaming client sends its body in the chunked transfer
coding. The rules API reads each as the same document; a parser that counts brackets inside
strings as nesting, refuses a valid surrogate pair, or asks every body for a Content-Length
refuses requests the client got right.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import entrypoint_guard, log_rule
from conformance.suite.setup_check import not_checked, require_ok

# what a far API answers when it sheds load; the retry layer re-sends other bodies on it
TRANSIENT = frozenset({429, 502, 503})

# raw JSON text of a description -> the string it encodes (RFC 8259 section 7)
DESCRIPTIONS = {
    "surrogate-pair": (r'"ec \ud83d\ude00 pair"', "ec \U0001f600 pair"),
    "escaped-bmp": (r'"ec \u00e9\u4e2d \u0041"', "ec \u00e9\u4e2d A"),
    "brackets-in-string": (
        '"ec \\"' + "[" * 80 + "{" * 40 + '\\" \\\\"',
        'ec "' + "[" * 80 + "{" * 40 + '" \\',
    ),
}


def _raw_put_body(description_json: str) -> bytes:
    """The entry point PUT body, one log rule, its description written as `description_json`."""
    rule = log_rule(request=("x-ec-json-form",))
    rule["description"] = "@@DESCRIPTION@@"
    text = json.dumps({"rules": [rule]})
    return text.replace('"@@DESCRIPTION@@"', description_json).encode()


def _descriptions(ruleset: Any) -> list[Any]:
    rules = ruleset.get("rules") if isinstance(ruleset, dict) else None
    assert isinstance(rules, list) and rules, f"no rules in {ruleset}"
    return [rule.get("description") for rule in rules if isinstance(rule, dict)]


@pytest.mark.rule("logs.rule.description")
@pytest.mark.parametrize("form", sorted(DESCRIPTIONS))
def test_description_sent_in_escaped_form_is_the_text_it_encodes(
    rules_api: RulesApiClient, form: str
) -> None:
    """A rule description written with JSON escapes is stored and answered as the text they
    encode (RFC 8259 section 7: a character outside the BMP is a surrogate-pair escape; `\\"`
    and `\\\\` are a quote and a backslash; brackets inside a string are text, not nesting),
    in the PUT's answer and on a later GET."""
    raw, expected = DESCRIPTIONS[form]
    path = rules_api.zone("/rulesets/phases/http_log_custom_fields/entrypoint")
    with entrypoint_guard(rules_api):
        reply = rules_api.request("PUT", path, raw=_raw_put_body(raw))
        answered = reply.assert_envelope_ok(200)
        later = require_ok(rules_api.get_entrypoint(), "GET of the entry point").result
        for shown in (answered, later):
            assert _descriptions(shown) == [expected], (
                f"description sent as JSON {raw[:60]!r}... answered {_descriptions(shown)!r}"
            )


ODD_BODIES = {
    # a high surrogate escape with no low one after it, and a low one alone
    "lone-high-surrogate": _raw_put_body(r'"ec \ud800 lone"'),
    "lone-low-surrogate": _raw_put_body(r'"ec \udfff lone"'),
    # one member twice in the rule object: which copy counts is the parser's (RFC 8259 section 4)
    "name-twice": _raw_put_body('"ec first", "description": "ec second"'),
}


@pytest.mark.rule("logs.envelope.client-input-not-5xx")
@pytest.mark.parametrize("case", sorted(ODD_BODIES))
def test_odd_json_is_answered_not_failed(rules_api: RulesApiClient, case: str) -> None:
    """The client sent it: the body is taken (2xx) or refused with a 4xx in the failure
    envelope, never a 5xx (docs/decisions.md "Odd JSON bodies")."""
    path = rules_api.zone("/rulesets/phases/http_log_custom_fields/entrypoint")
    with entrypoint_guard(rules_api):
        reply = rules_api.request("PUT", path, raw=ODD_BODIES[case])
        assert reply.status < 500, f"{case}: a 5xx for the client's body: {reply.describe()}"
        if reply.status >= 400:
            reply.assert_envelope_error(reply.status)
        else:
            reply.assert_envelope_ok()


@pytest.mark.rule("logs.rulesets.chunked-body")
def test_chunked_put_is_served(rules_api: RulesApiClient) -> None:
    """The entry point PUT sent in the chunked transfer coding, no Content-Length: served like
    the same body with one (its rule in the answer and on a later GET), or refused 411 (RFC
    9112 section 6.3). 413 says the content is too large (RFC 9110 15.5.14), which a
    200-byte body is not."""
    body = json.dumps({"rules": [log_rule(request=("x-ec-chunked",))]}).encode()
    path = rules_api.zone("/rulesets/phases/http_log_custom_fields/entrypoint")
    with entrypoint_guard(rules_api):
        reply = rules_api.send("PUT", path, data=body, chunked=True)
        if reply.status == 411:
            return
        if reply.status in TRANSIENT:  # a chunked body is never re-sent (clients/retry.py)
            not_checked(f"the chunked PUT met a transient answer: {reply.describe()}")
        answered = reply.assert_envelope_ok(200)
        later = require_ok(rules_api.get_entrypoint(), "GET of the entry point").result
        for shown in (answered, later):
            params = [rule.get("action_parameters") for rule in shown.get("rules", [])]
            assert params == [{"request_fields": [{"name": "x-ec-chunked"}]}], (
                f"rules after a chunked PUT: {shown}"
            )
