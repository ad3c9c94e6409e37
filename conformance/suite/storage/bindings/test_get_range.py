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
        ({"offset": 15, "length": 1}, BODY[15:]),
        ({"offset": 0, "length": 16}, BODY),
        ({"offset": 12, "length": 10}, BODY[12:]),
        ({"suffix": 16}, BODY),
        ({"suffix": 40}, BODY),
        ({"offset": 0}, BODY),
    ],
    ids=["offset-length", "offset", "length", "suffix", "last-byte", "whole", "past-end",
         "suffix-whole", "suffix-over-size", "offset-zero"],
)  # fmt: skip
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
        {},
        {"start": 1},
        {"suffix": 2, "length": 1},
        {"offset": True},
        {"length": 1.5},
        {"suffix": "3"},
        [0, 4],
        "bytes=0-3",
    ],
    ids=[
        "negative-offset",
        "negative-length",
        "negative-suffix",
        "offset-and-suffix",
        "fractional-offset",
        "text-offset",
        "empty",
        "unknown-field",
        "suffix-and-length",
        "boolean-offset",
        "fractional-length",
        "text-suffix",
        "array",
        "header-text",
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


@pytest.mark.rule("storage.bindings.get-range")
@pytest.mark.parametrize(
    ("spec", "offset", "length"),
    [
        ({"offset": 2, "length": 3}, 2, 3),
        ({"offset": 10}, 10, 6),
        ({"offset": 12, "length": 9}, 12, 4),
    ],
    ids=["offset-length", "offset", "past-end"],
)  # fmt: skip
def test_get_range_reports_its_range(
    bindings: Any, names: Any, spec: dict[str, int], offset: int, length: int
) -> None:
    """The R2ObjectBody of a ranged get() names the range it holds (`range`: offset, length),
    and `size` stays the whole object's."""
    key = names.key()
    bindings.put(key, BODY).value()
    got = bindings.get(key, range=spec).value()
    assert body_of(got) == BODY[offset : offset + length]
    assert got.get("range") == {"offset": offset, "length": length}, got.get("range")
    assert got["size"] == len(BODY)
