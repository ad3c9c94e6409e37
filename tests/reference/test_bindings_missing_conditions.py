"""onlyIf on a key with no object (reference_impl/bindings/conditions.py `satisfied`).

Only etagMatches and uploadedAfter fail there: nothing matches, nothing was uploaded after the
date. etagDoesNotMatch and uploadedBefore hold. The provider's conditional operations page
says so for If-Match / If-None-Match / If-Modified-Since (and its If-Unmodified-Since cell, cut
short in the copy read, reads the same way on the S3 surface, docs/decisions.md); miniflare
4.20260730.0's R2 answers all eight cases below the same way (a bridge probe, hostile round 6).
The reference had both time conditions inverted: put(onlyIf: {uploadedBefore}) on a new key
wrote nothing, put(onlyIf: {uploadedAfter}) wrote. The MUST half (uploadedAfter fails) is the
black-box rule storage.bindings.put-only-if (test_put_on_missing_key_modified_since).
"""

from __future__ import annotations

import pytest

from reference_impl.bindings.conditions import parse, satisfied

HTTP_DATE = "Sat, 01 Jan 2000 00:00:00 GMT"
CASES = {
    "uploadedBefore-past": ({"uploadedBefore": "2000-01-01T00:00:00Z"}, True),
    "uploadedAfter-past": ({"uploadedAfter": "2000-01-01T00:00:00Z"}, False),
    "If-Unmodified-Since": ({"headers": {"If-Unmodified-Since": HTTP_DATE}}, True),
    "If-Modified-Since": ({"headers": {"If-Modified-Since": HTTP_DATE}}, False),
    "etagDoesNotMatch-and-uploadedAfter": (
        {"etagDoesNotMatch": "a", "uploadedAfter": "2000-01-01T00:00:00Z"}, False,
    ),
    "etagMatches-wildcard": ({"etagMatches": "*"}, False),
    "etagDoesNotMatch-wildcard": ({"etagDoesNotMatch": "*"}, True),
    "etagMatches-and-uploadedBefore": (
        {"etagMatches": "a", "uploadedBefore": "2999-01-01T00:00:00Z"}, False,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_conditions_on_a_missing_object(name: str) -> None:
    only_if, met = CASES[name]
    cond = parse("put", only_if, lists=True)
    assert cond is not None
    assert satisfied(cond, None, None, first_only=False, weak_if_match=False) is met, name
