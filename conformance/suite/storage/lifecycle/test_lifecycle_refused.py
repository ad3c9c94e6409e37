"""An invalid lifecycle configuration is refused and changes nothing.

S3's API states the value ranges (Days and DaysAfterInitiation positive integers, Date in ISO
8601 and "always midnight UTC", Days or Date, Status Enabled or Disabled, a rule with an
action); the provider does not say which error it answers, so the rule asks only for a 4xx and
the earlier rules kept. Where R2's own lifecycle API accepts the like of what S3 refuses (no
rule or action, a max age of 0, a date-time condition at any time of day), the case is in the
MAY rule, not the SHOULD one.
"""

from __future__ import annotations

import pytest

from .test_lifecycle_config import LIFECYCLE, _text, expire_rule, lifecycle_xml, put_lifecycle

MAX_RULES = 1000  # S3: a lifecycle configuration holds up to 1,000 rules
FILTER = "<Filter><Prefix>bad/</Prefix></Filter>"


def _rule(status: str = "Enabled", action: str = "") -> str:
    return f"<Rule><ID>bad</ID>{FILTER}<Status>{status}</Status>{action}</Rule>"


def _expiration(inner: str) -> str:
    return _rule(action=f"<Expiration>{inner}</Expiration>")


def _abort(days: str) -> str:
    inner = f"<DaysAfterInitiation>{days}</DaysAfterInitiation>"
    return _rule(action=f"<AbortIncompleteMultipartUpload>{inner}</AbortIncompleteMultipartUpload>")


INVALID = {
    "days-negative": _expiration("<Days>-1</Days>"),
    "days-fraction": _expiration("<Days>1.5</Days>"),
    "days-not-a-number": _expiration("<Days>ten</Days>"),
    "days-beyond-int32": _expiration(f"<Days>{2**31}</Days>"),
    "date-not-iso-8601": _expiration("<Date>next tuesday</Date>"),
    "days-and-date": _expiration("<Days>1</Days><Date>2031-01-01T00:00:00Z</Date>"),
    "expiration-empty": _expiration(""),
    "abort-days-not-a-number": _abort("soon"),
    "status-unknown": _rule(status="Sometimes", action="<Expiration><Days>1</Days></Expiration>"),
    # the valid rule beside it is `o`: a second rule of that ID (S3: IDs unique)
    "id-repeated": expire_rule("o", "other/", 9),
    "id-256-characters": expire_rule("i" * 256, "long/", 9),  # S3: up to 255 characters
}
# shapes S3 refuses and R2's own lifecycle API accepts the like of (rules and actions
# optional, a max age of 0, a Date condition that is any date-time): a rule of their own, MAY
EMPTY_OR_ZERO = {
    "days-zero": _expiration("<Days>0</Days>"),
    "abort-days-zero": _abort("0"),
    "no-action": _rule(),
    # S3: "The time is always midnight UTC": noon UTC, and midnight at +05:00 (19:00 UTC)
    "date-not-midnight-utc": _expiration("<Date>2031-01-01T12:00:00Z</Date>"),
    "date-offset-not-midnight-utc": _expiration("<Date>2031-01-01T00:00:00+05:00</Date>"),
}
NO_RULE = "no-rule"  # a LifecycleConfiguration with no Rule at all


@pytest.mark.rule("storage.lifecycle.invalid-refused")
@pytest.mark.parametrize("rule", list(INVALID.values()), ids=list(INVALID))
def test_invalid_configuration_refused_and_rules_kept(s3, bucket, rule):
    """The bad rule beside a valid one is refused with a 4xx; the rules put before stay."""
    _refused_and_kept(s3, bucket, rule)


@pytest.mark.rule("storage.lifecycle.empty-or-zero-refused")
@pytest.mark.parametrize("rule", [*EMPTY_OR_ZERO.values(), NO_RULE], ids=[*EMPTY_OR_ZERO, NO_RULE])
def test_empty_or_zero_configuration_refused_and_rules_kept(s3, bucket, rule):
    """No Rule, a rule with no action, 0 days or a Date not at midnight UTC: refused as S3
    does; the rules put before stay."""
    _refused_and_kept(s3, bucket, rule)


def _refused_and_kept(s3, bucket: str, rule: str) -> None:
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule("kept", "kept/", 30))).assert_ok()
    body = lifecycle_xml() if rule == NO_RULE else lifecycle_xml(expire_rule("o", "o/", 5), rule)
    reply = put_lifecycle(s3, bucket, body)
    assert 400 <= reply.status < 500, (reply.status, reply.body[:400])
    after = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    root = after.xml
    assert root is not None, after.body[:300]
    ids = sorted(_text(node, "ID") or "" for node in root)
    assert ids == ["kept"], after.body[:600]
    assert _text(root[0], "Expiration/Days") == "30", after.body[:600]


@pytest.mark.rule("storage.lifecycle.invalid-refused")
def test_limits_accepted_at_the_bound(s3, bucket):
    """The other side of the bounds refused above: a 255-character ID and 1000 rules (S3's
    LifecycleRule ID and rule-count limits) are accepted and returned whole."""
    longest = "i" * 255
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule(longest, "long/", 9))).assert_ok()
    got = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    assert got.xml is not None and [_text(n, "ID") for n in got.xml] == [longest], got.body[:400]
    rules = [expire_rule(f"r{n}", f"p{n}/", 1 + n % 9) for n in range(MAX_RULES)]
    put_lifecycle(s3, bucket, lifecycle_xml(*rules)).assert_ok()
    got = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    assert got.xml is not None, got.body[:300]
    assert len(got.xml) == MAX_RULES, f"{len(got.xml)} rules returned of {MAX_RULES}"
    assert _text(got.xml[-1], "Expiration/Days") is not None, got.body[-400:]


@pytest.mark.rule("storage.lifecycle.invalid-refused")
def test_more_than_1000_rules_refused(s3, bucket):
    """1001 rules: over S3's limit of 1000 per configuration, a 4xx, the earlier rules kept."""
    put_lifecycle(s3, bucket, lifecycle_xml(expire_rule("kept", "kept/", 30))).assert_ok()
    rules = [expire_rule(f"r{n}", f"p{n}/", 1) for n in range(MAX_RULES + 1)]
    reply = put_lifecycle(s3, bucket, lifecycle_xml(*rules))
    assert 400 <= reply.status < 500, (reply.status, reply.body[:400])
    after = s3.wire.request("GET", bucket, query=LIFECYCLE).assert_ok()
    assert after.xml is not None, after.body[:300]
    assert [_text(node, "ID") for node in after.xml] == ["kept"], after.body[:600]
