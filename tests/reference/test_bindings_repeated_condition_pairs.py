"""An onlyIf given as [name, value] pairs naming If-(None-)Match twice is one list.

`new Headers(pairs)` appends each pair, and `get` answers the values comma-joined (the
bridge's own peer, miniflare, builds exactly that Headers); a dict of the pairs kept the last
line only, so `If-None-Match: "<etag>"` then `If-None-Match: "x"` let a conditional put
overwrite the object it names (review14).
"""

from __future__ import annotations

from reference_impl.bindings.conditions import parse, satisfied


def test_two_if_none_match_pairs_are_one_list() -> None:
    cond = parse("put", {"headers": [["If-None-Match", '"e1"'], ["if-none-match", '"x"']]}, True)
    assert cond is not None and cond.etag_does_not_match == ("e1", "x")
    assert not satisfied(cond, "e1", 0.0, first_only=False, weak_if_match=False)


def test_two_if_match_pairs_are_one_list() -> None:
    cond = parse("get", {"headers": [["If-Match", '"x"'], ["If-Match", '"e1"']]}, True)
    assert cond is not None and cond.etag_matches == ("x", "e1")
    assert satisfied(cond, "e1", 0.0, first_only=False, weak_if_match=False)
