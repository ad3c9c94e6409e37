"""A gzip-stored object on a public bucket, read with every form of Accept-Encoding.

The spec states the accepting case (item 6: `Accept-Encoding: gzip` gets `Content-Encoding:
gzip`). RFC 9110 decides the rest: a 200 to a GET carries the object (15.3.1), so whatever
coding the answer declares, undoing it gives the object's content; and a client whose
Accept-Encoding refuses gzip (`identity`, `gzip;q=0`, an empty value, only other codings;
12.5.3: q=0 is "not acceptable", an unlisted coding is not acceptable) SHOULD get no gzip
coding. A 406 (12.1: the server honours the header and has nothing acceptable) is allowed
wherever the client refused gzip.
"""

from __future__ import annotations

import gzip
import random
from typing import Any

import pytest

CONTENT = b'{"hello": "world"}' * 50

# coding names are case-insensitive (RFC 9110 8.4.1), weights optional (12.4.2); only forms
# where gzip is the client's first choice: with `identity, gzip`, `gzip;q=0.001` or a
# preferred `br`, another answer is as valid (12.5.3), so those are in OTHER_FORMS
ACCEPTING = ["gzip", "GZIP", "gzip;q=1", "gzip;q=1.0, identity;q=0.5"]
OTHER_FORMS = ["br;q=1.0, gzip;q=0.5", "identity, gzip", "gzip;q=0.001"]
# every form that leaves gzip not acceptable (RFC 9110 12.5.3)
REFUSING = [
    "identity",
    "",
    "br",
    "gzip;q=0",
    "GZIP;Q=0",
    "gzip;q=0.000",
    "gzip;q=0, identity",
    "br, gzip;q=0",
    "gzip;q=0, *",
    "*;q=0, identity",
    # RFC 9110 12.4.2: weight = OWS ";" OWS "q=" qvalue, so whitespace may stand around the ';'
    "gzip; q=0",
    "br; q=1.0, gzip ; q=0",
]


@pytest.fixture
def packed_key(s3: Any, public: Any, names: Any) -> str:
    """A gzip object of the public bucket (Content-Encoding: gzip in its metadata); its key."""
    key = names.key(".json.gz")
    s3.boto.put_object(
        Bucket=public.bucket, Key=key, Body=gzip.compress(CONTENT), ContentEncoding="gzip",
        ContentType="application/json",
    )  # fmt: skip
    return str(key)


def _codings(reply: Any) -> list[str]:
    """The content codings the answer declares, identity left out."""
    codings = [c.strip().lower() for c in (reply.header("content-encoding") or "").split(",")]
    return [c for c in codings if c and c != "identity"]


def _content_of(reply: Any) -> bytes | None:
    """The body with the codings the answer declares undone; None for a coding this test
    cannot undo (a `br` answer to a client that accepts it is valid, RFC 9110 12.5.3)."""
    body = bytes(reply.body)
    for coding in reversed(_codings(reply)):
        if coding not in ("gzip", "x-gzip"):
            return None
        body = gzip.decompress(body)
    return body


@pytest.mark.rule("storage.public.get-object")
@pytest.mark.parametrize("accept", [None, *ACCEPTING, *OTHER_FORMS, *REFUSING])
def test_gzip_object_is_whole_in_every_answer(public, packed_key, accept):
    """Whatever Accept-Encoding says, a 200 carries the whole object once its declared coding is
    undone (never an empty or cut body); a client refusing gzip may get 406 instead."""
    headers = {} if accept is None else {"Accept-Encoding": accept}
    reply = public.get(packed_key, headers)
    if accept in REFUSING and reply.status == 406:
        return
    assert reply.status == 200, reply.describe()
    content = _content_of(reply)
    if content is None:  # another coding: not undone here, but never an empty body
        assert reply.body, reply.describe()
        return
    assert content == CONTENT, (
        f"Accept-Encoding {accept!r}: {len(reply.body)} body bytes do not give the object "
        f"({len(CONTENT)} bytes): {reply.describe()}"
    )


# gzip objects whose decoding spans more than one piece: a body that inflates to far more than
# it stores, one larger than a read buffer, one whose deflate data refers 30 000 bytes back
# (within gzip's 32 KiB window, RFC 1951 3.2.5), and two gzip members one after the other
# (RFC 1952 2.2: a gzip file is a series of members; it decodes to the members' contents
# joined), the second with such a reference too
_NOISE = random.Random(17).randbytes(600_000)
_FAR = _NOISE[:70_000] + _NOISE[40_000:60_000]
_FIRST = b"first member;" * 4_000
LARGE = {
    "inflating": b"0123456789abcdef" * 20_000,
    "incompressible": _NOISE,
    "far-reference": _FAR,
    "two-members": _FIRST + _NOISE[:30_000] + _NOISE[:14_000],
}


def _packed(kind: str) -> bytes:
    content = LARGE[kind]
    if kind == "two-members":
        return gzip.compress(content[: len(_FIRST)]) + gzip.compress(content[len(_FIRST) :])
    return gzip.compress(content)


@pytest.mark.rule("storage.public.get-object")
@pytest.mark.parametrize("kind", list(LARGE))
@pytest.mark.parametrize("accept", ["identity", "gzip"])
def test_large_or_multi_member_gzip_object_is_whole(s3, public, names, kind, accept):
    """A gzip object that decodes in many pieces is whole in a 200, whether the client accepts
    gzip (the stored bytes) or refuses it (decoded, or 406): never a cut or mixed body."""
    key = names.key(".bin.gz")
    s3.boto.put_object(
        Bucket=public.bucket, Key=key, Body=_packed(kind), ContentEncoding="gzip",
    )  # fmt: skip
    reply = public.get(key, {"Accept-Encoding": accept})
    if accept == "identity" and reply.status == 406:
        return
    assert reply.status == 200, reply.describe()
    content = _content_of(reply)
    assert content == LARGE[kind], (
        f"{kind}, Accept-Encoding {accept}: {len(reply.body)} body bytes do not give the "
        f"object ({len(LARGE[kind])} bytes): {reply.describe()}"
    )


@pytest.mark.rule("storage.public.get-object")
@pytest.mark.parametrize("accept", ["identity", "gzip"])
def test_gzip_object_of_empty_content_is_whole(s3, public, names, accept):
    """A gzip object whose content is empty (a valid gzip member of nothing, RFC 1952 2.3) is a
    200 with a body that undoes to nothing, whether the client accepts gzip (the stored bytes)
    or refuses it (an empty decoded body, or 406); never an error."""
    key = names.key(".txt.gz")
    s3.boto.put_object(
        Bucket=public.bucket, Key=key, Body=gzip.compress(b""), ContentEncoding="gzip",
    )  # fmt: skip
    reply = public.get(key, {"Accept-Encoding": accept})
    if accept == "identity" and reply.status == 406:
        return
    assert reply.status == 200, reply.describe()
    assert _content_of(reply) == b"", f"Accept-Encoding {accept}: {reply.describe()}"


@pytest.mark.rule("storage.public.gzip-content-encoding")
@pytest.mark.parametrize("accept", ACCEPTING)
def test_gzip_accepted_in_every_form(public, packed_key, accept):
    """Each form of an Accept-Encoding that admits gzip gets Content-Encoding: gzip."""
    reply = public.get(packed_key, {"Accept-Encoding": accept})
    assert reply.status == 200, reply.describe()
    assert (reply.header("content-encoding") or "").lower() == "gzip", reply.describe()
    assert gzip.decompress(reply.body) == CONTENT


@pytest.mark.rule("storage.public.gzip-refused-not-encoded")
@pytest.mark.parametrize("accept", REFUSING)
def test_gzip_refused_gets_no_gzip(public, packed_key, accept):
    """A client whose Accept-Encoding leaves gzip not acceptable gets no gzip coding: the
    object decoded (200, the whole content), in a coding it accepts, or 406."""
    reply = public.get(packed_key, {"Accept-Encoding": accept})
    if reply.status == 406:
        return
    assert reply.status == 200, reply.describe()
    codings = _codings(reply)
    assert not {"gzip", "x-gzip"} & set(codings), (
        f"Accept-Encoding {accept!r} refuses gzip: {reply.describe()}"
    )
    if not codings:
        assert reply.body == CONTENT, reply.describe()


@pytest.mark.rule("storage.public.gzip-refused-not-encoded")
@pytest.mark.parametrize("stored", ["GZIP", "x-gzip"])
@pytest.mark.parametrize("ranged", [False, True], ids=["whole", "ranged"])
def test_gzip_spelled_otherwise_is_gzip(s3, public, names, stored, ranged):
    """An object stored as `GZIP` or `x-gzip` is gzip (RFC 9110 8.4.1: coding names are
    case-insensitive; 8.4.1.3: x-gzip is gzip): a client refusing gzip gets it decoded, whole
    (200) or as a range of the decoded bytes (206), or 406; never the gzip bytes."""
    key = names.key(".json.gz")
    s3.boto.put_object(
        Bucket=public.bucket, Key=key, Body=gzip.compress(CONTENT), ContentEncoding=stored,
    )  # fmt: skip
    headers = {"Accept-Encoding": "identity"}
    if ranged:
        headers["Range"] = "bytes=0-9"
    reply = public.get(key, headers)
    if reply.status == 406:
        return
    assert reply.status in (200, 206), reply.describe()
    assert (reply.header("content-encoding") or "identity").lower() == "identity", (
        f"stored as {stored!r}, sent to a client refusing gzip: {reply.describe()}"
    )
    wanted = CONTENT if reply.status == 200 else CONTENT[:10]
    assert reply.body == wanted, reply.describe()
