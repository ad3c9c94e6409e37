"""put() and get()/head(): bodies, metadata, user checksums and the default MD5."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from conformance.clients.bindings import body_of

BODY = bytes(range(256)) * 3


@pytest.mark.rule("storage.bindings.put-get")
def test_put_get_round_trip(bindings: Any, names: Any) -> None:
    """An object put with metadata reads back byte-identical with its metadata."""
    key = names.key()
    put = bindings.put(key, BODY, customMetadata={"colour": "teal"}).value()
    assert put["key"] == key and put["size"] == len(BODY)
    got = bindings.get(key).value()
    assert body_of(got) == BODY
    assert got["size"] == len(BODY)
    assert got["etag"] == put["etag"]
    assert got["httpEtag"] == f'"{put["etag"]}"'
    assert got["customMetadata"] == {"colour": "teal"}


@pytest.mark.parametrize(
    "algorithm",
    [
        pytest.param("sha1", marks=pytest.mark.rule("storage.bindings.put-sha1")),
        pytest.param("sha256", marks=pytest.mark.rule("storage.bindings.put-sha256")),
        pytest.param("sha384", marks=pytest.mark.rule("storage.bindings.put-sha384")),
        pytest.param("sha512", marks=pytest.mark.rule("storage.bindings.put-sha512")),
    ],
)
def test_put_user_checksum(bindings: Any, names: Any, algorithm: str) -> None:
    """put() keeps an object whose user checksum matches and refuses one that does not."""
    good, bad = names.key(), names.key()
    digest = hashlib.new(algorithm, BODY).hexdigest()
    stored = bindings.put(good, BODY, **{algorithm: digest}).value()
    assert stored["checksums"][algorithm] == digest
    wrong = hashlib.new(algorithm, BODY + b"!").hexdigest()
    bindings.put(bad, BODY, **{algorithm: wrong}).refused()
    assert bindings.head(bad).value() is None, "an object with a wrong checksum was stored"


@pytest.mark.rule("storage.bindings.get-checksums")
def test_get_returns_user_checksum(bindings: Any, names: Any) -> None:
    """get() returns the SHA-256 the object was put with."""
    key = names.key()
    digest = hashlib.sha256(BODY).hexdigest()
    bindings.put(key, BODY, sha256=digest).value()
    got = bindings.get(key).value()
    assert got["checksums"].get("sha256") == digest
    assert body_of(got) == BODY


@pytest.mark.rule("storage.bindings.head-checksums")
def test_head_returns_user_checksum(bindings: Any, names: Any) -> None:
    """head() returns the SHA-512 the object was put with."""
    key = names.key()
    digest = hashlib.sha512(BODY).hexdigest()
    bindings.put(key, BODY, sha512=digest).value()
    assert bindings.head(key).value()["checksums"].get("sha512") == digest


@pytest.mark.rule("storage.bindings.md5-default")
def test_head_returns_md5_by_default(bindings: Any, names: Any) -> None:
    """An object put without checksums has its MD5 among head()'s checksums."""
    key = names.key()
    bindings.put(key, BODY).value()
    assert bindings.head(key).value()["checksums"].get("md5") == hashlib.md5(BODY).hexdigest()
