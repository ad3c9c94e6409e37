"""onlyIf on put() and get(): ETag and upload-time conditions, ETag lists, weak and wildcard."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.bindings import body_of


def _object(bindings: Any, names: Any, body: bytes = b"first") -> tuple[str, str]:
    key = names.key()
    return key, str(bindings.put(key, body).value()["etag"])


@pytest.mark.rule("storage.bindings.put-only-if")
def test_put_unmet_condition_writes_nothing(bindings: Any, names: Any) -> None:
    """put() with an unmet onlyIf returns null and leaves the object as it was."""
    key, etag = _object(bindings, names)
    other = "0" * 32
    assert bindings.put(key, b"second", onlyIf={"etagMatches": other}).value() is None
    assert (
        bindings.put(key, b"second", onlyIf={"uploadedBefore": "2000-01-01T00:00:00Z"}).value()
        is None
    )
    assert body_of(bindings.get(key).value()) == b"first"
    assert bindings.put(key, b"second", onlyIf={"etagMatches": etag}).value() is not None
    assert body_of(bindings.get(key).value()) == b"second"


def _read(bindings: Any, key: str, headers: dict[str, str]) -> bool:
    """Whether get() with these conditional headers returned the body (condition met)."""
    got = bindings.get(key, onlyIf={"headers": headers}).value()
    assert got is not None and got["key"] == key, f"expected the object, got {got!r}"
    return "body" in got


@pytest.mark.rule("storage.bindings.conditional-strong-list")
def test_if_match_list_of_strong_etags(bindings: Any, names: Any) -> None:
    """If-Match with several strong ETags is met when any of them is the object's."""
    key, etag = _object(bindings, names)
    assert _read(bindings, key, {"If-Match": f'"{"1" * 32}", "{etag}"'})
    assert not _read(bindings, key, {"If-Match": f'"{"1" * 32}", "{"2" * 32}"'})
    assert not _read(bindings, key, {"If-None-Match": f'"{"1" * 32}", "{etag}"'})


@pytest.mark.rule("storage.bindings.conditional-weak")
def test_if_none_match_weak_etag(bindings: Any, names: Any) -> None:
    """A weak ETag in If-None-Match compares by value: the object's own ETag fails the read."""
    key, etag = _object(bindings, names)
    assert not _read(bindings, key, {"If-None-Match": f'W/"{etag}"'})
    assert _read(bindings, key, {"If-None-Match": f'W/"{"3" * 32}"'})


@pytest.mark.rule("storage.bindings.conditional-wildcard")
def test_wildcard_etag(bindings: Any, names: Any) -> None:
    """`*` matches any existing object: If-Match is met, If-None-Match is not."""
    key, _ = _object(bindings, names)
    assert _read(bindings, key, {"If-Match": "*"})
    assert not _read(bindings, key, {"If-None-Match": "*"})
