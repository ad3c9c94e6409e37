"""get() with a range option: offset/length and suffix ranges; malformed ranges are no crash."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.bindings import body_of

BODY = b"0123456789abcdef"


@pytest.mark.rule("storage.bindings.get-range")
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"offset": 2, "length": 3}, BODY[2:5]),
        ({"offset": 10}, BODY[10:]),
        ({"length": 4}, BODY[:4]),
        ({"suffix": 5}, BODY[-5:]),
    ],
    ids=["offset-length", "offset", "length", "suffix"],
)
def test_get_range(bindings: Any, names: Any, spec: dict[str, int], expected: bytes) -> None:
    """get() returns exactly the bytes of the range."""
    key = names.key()
    bindings.put(key, BODY).value()
    assert body_of(bindings.get(key, range=spec).value()) == expected


@pytest.mark.rule("storage.bindings.malformed-range")
@pytest.mark.parametrize(
    "spec",
    [
        {"offset": -1},
        {"offset": 0, "length": -4},
        {"suffix": -3},
        {"offset": 1, "suffix": 2},
        {"offset": 1.5},
        {"offset": "abc"},
    ],
    ids=[
        "negative-offset",
        "negative-length",
        "negative-suffix",
        "offset-and-suffix",
        "fractional-offset",
        "text-offset",
    ],
)
def test_malformed_range_is_no_internal_error(
    bindings: Any, names: Any, spec: dict[str, Any]
) -> None:
    """A malformed range gets a clean refusal (or an answer), never an internal error."""
    key = names.key()
    bindings.put(key, BODY).value()
    outcome = bindings.get(key, range=spec)
    if outcome.error is not None:
        outcome.refused()
    else:
        assert outcome.status == 200, outcome.describe()
