"""GetBucketCors reads back the whole configuration PutBucketCors stored.

An implementer may store every field and render only some (the first origin of a rule, no
ExposeHeader, no MaxAgeSeconds): a browser never sees that, a tool that reads the
configuration, edits it and puts it back loses the rest.
"""

from __future__ import annotations

from typing import Any

import pytest

from .support import config_xml, get_cors, put_cors, rule_xml

FIRST = {
    "origins": ["https://a.example.com", "https://b.example.com"],
    "methods": ["GET", "PUT"],
    "headers": ["content-type", "x-amz-meta-colour"],
    "expose": ["ETag", "x-amz-meta-colour"],
    "max_age": "3000",
}
SECOND = {"origins": ["*"], "methods": ["HEAD"], "headers": [], "expose": [], "max_age": None}


def _xml(rule: dict[str, Any]) -> str:
    extra = f"<MaxAgeSeconds>{rule['max_age']}</MaxAgeSeconds>" if rule["max_age"] else ""
    return rule_xml(rule["origins"], rule["methods"], rule["headers"], rule["expose"], extra)


def _read(node: Any) -> dict[str, Any]:
    """A <CORSRule> as FIRST/SECOND hold it (namespace or not; header names lower-cased)."""
    fields: dict[str, Any] = {name: [] for name in ("origins", "methods", "headers", "expose")}
    fields["max_age"] = None
    names = {"AllowedOrigin": "origins", "AllowedMethod": "methods",
             "AllowedHeader": "headers", "ExposeHeader": "expose"}  # fmt: skip
    for child in node:
        tag, text = child.tag.rsplit("}", 1)[-1], (child.text or "").strip()
        if tag in names:
            fields[names[tag]].append(text)
        elif tag == "MaxAgeSeconds":
            fields["max_age"] = text
    fields["headers"] = sorted(h.lower() for h in fields["headers"])
    fields["expose"] = sorted(h.lower() for h in fields["expose"])
    return fields


def _expected(rule: dict[str, Any]) -> dict[str, Any]:
    return rule | {
        "headers": sorted(h.lower() for h in rule["headers"]),
        "expose": sorted(h.lower() for h in rule["expose"]),
    }


@pytest.mark.rule("storage.get-bucket-cors.round-trip")
def test_every_field_of_every_rule_is_read_back(s3, bucket):
    """Two rules, the first with two values in each list and a MaxAgeSeconds: GetBucketCors
    returns both rules in order, each field sent whole (a MaxAgeSeconds the target adds to
    the second rule, sent without one, is not judged)."""
    put_cors(s3, bucket, config_xml(_xml(FIRST), _xml(SECOND))).assert_ok()
    reply = get_cors(s3, bucket).assert_ok()
    root = reply.xml
    assert root is not None, f"GetBucketCors: no XML; {reply.body[:300]!r}"
    rules = [_read(node) for node in root.iter() if node.tag.rsplit("}", 1)[-1] == "CORSRule"]
    if len(rules) == 2 and SECOND["max_age"] is None:
        rules[1]["max_age"] = None  # a default a target adds to a rule sent without one: not judged
    assert rules == [_expected(FIRST), _expected(SECOND)], (
        f"GetBucketCors read back {rules}; answer {reply.body[:600]!r}"
    )
