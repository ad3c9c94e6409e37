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


@pytest.mark.rule("storage.bindings.conditional-weak-if-match")
@pytest.mark.parametrize("form", ["headers", "etagMatches"])
def test_if_match_weak_etag_never_matches(bindings: Any, names: Any, form: str) -> None:
    """If-Match / etagMatches compares strongly (RFC 9110 13.1.1): W/"<etag>" never matches.

    The object's own ETag marked weak leaves get() without a body and put() without a write;
    the same ETag unmarked still matches, in an If-Match list beside the weak one too (lists
    are the header's form: workerd takes an etagMatches string as one unquoted ETag).
    """
    key, etag = _object(bindings, names)
    weak = f'W/"{etag}"'

    def only_if(value: str) -> dict[str, Any]:
        return {"headers": {"If-Match": value}} if form == "headers" else {"etagMatches": value}

    assert "body" not in _got(bindings, key, only_if(weak)), "a weak ETag matched If-Match"
    listed = f'{weak}, "{etag}"' if form == "headers" else etag
    assert "body" in _got(bindings, key, only_if(listed))
    assert bindings.put(key, b"second", onlyIf={"etagMatches": weak}).value() is None
    assert body_of(bindings.get(key).value()) == b"first", "written under a weak If-Match"


def _got(bindings: Any, key: str, only_if: dict[str, Any]) -> dict[str, Any]:
    got = bindings.get(key, onlyIf=only_if).value()
    assert got is not None and got["key"] == key, f"expected the object, got {got!r}"
    return dict(got)


@pytest.mark.rule("storage.bindings.conditional-wildcard")
def test_wildcard_etag(bindings: Any, names: Any) -> None:
    """`*` matches any existing object: If-Match is met, If-None-Match is not."""
    key, _ = _object(bindings, names)
    assert _read(bindings, key, {"If-Match": "*"})
    assert not _read(bindings, key, {"If-None-Match": "*"})
