"""CopyObject's ext-copy-destination-if-* headers make the copy depend on the destination."""

from __future__ import annotations

import time
from email.utils import formatdate

import pytest

from conformance.clients import s3_multipart as mp

SOURCE, DESTINATION = b"the new bytes", b"the destination as it was"
OTHER_ETAG = '"00000000000000000000000000000000"'
PAST = formatdate(946684800, usegmt=True)  # 2000-01-01


def _future() -> str:
    return formatdate(time.time() + 86400, usegmt=True)


@pytest.fixture
def pair(s3, bucket, names):
    """(bucket, source key, destination key, destination ETag), both objects written."""
    src, dst = names.key(), names.key()
    s3.wire.put_object(bucket, src, SOURCE).assert_ok()
    dst_etag = mp.etag(s3.wire.put_object(bucket, dst, DESTINATION))
    return bucket, src, dst, dst_etag


def _copy(s3, pair, suffix, value):
    bucket, src, dst, _ = pair
    headers = {s3.wire.ext(f"copy-destination-{suffix}"): value}
    return mp.copy_object(s3.wire, bucket, dst, f"/{bucket}/{src}", headers=headers)


def _copy_to_missing(s3, bucket, names, suffix, value):
    """A copy of a fresh source to a key that holds nothing, under one destination condition:
    the answer and the destination key."""
    src, dst = names.key(), names.key()
    s3.wire.put_object(bucket, src, SOURCE).assert_ok()
    headers = {s3.wire.ext(f"copy-destination-{suffix}"): value}
    return mp.copy_object(s3.wire, bucket, dst, f"/{bucket}/{src}", headers=headers), dst


def _refused(s3, pair, reply):
    reply.assert_error(412, "PreconditionFailed")
    bucket, _, dst, _ = pair
    assert s3.wire.get_object(bucket, dst).assert_ok().body == DESTINATION, "copied anyway"


@pytest.mark.rule("storage.copy-object.destination-if-match")
def test_destination_if_match_unmet(s3, pair):
    """ext-copy-destination-if-match naming another ETag answers 412 and copies nothing."""
    _refused(s3, pair, _copy(s3, pair, "if-match", OTHER_ETAG))


@pytest.mark.rule("storage.copy-object.destination-if-match-missing")
@pytest.mark.parametrize("value", [OTHER_ETAG, "*"], ids=["etag", "star"])
def test_destination_if_match_missing(s3, bucket, names, value):
    """ext-copy-destination-if-match on a key that does not exist fails: 412, nothing written.

    The provider's conditional-operations page: If-Match (an ETag or `*`) fails when the key
    does not exist; not the 404 NoSuchKey of S3's PutObject If-Match on a missing key.
    """
    reply, dst = _copy_to_missing(s3, bucket, names, "if-match", value)
    reply.assert_error(412, "PreconditionFailed")
    s3.wire.get_object(bucket, dst).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.copy-object.destination-if-modified-since-missing")
@pytest.mark.parametrize("when", ["past", "future"])
def test_destination_if_modified_since_missing(s3, bucket, names, when):
    """ext-copy-destination-if-modified-since on a missing destination fails, whatever the date.

    The provider's conditional-operations page: If-Modified-Since fails when the key does not
    exist (there is no object modified after the date): 412, nothing written.
    """
    date = PAST if when == "past" else _future()
    reply, dst = _copy_to_missing(s3, bucket, names, "if-modified-since", date)
    reply.assert_error(412, "PreconditionFailed")
    s3.wire.get_object(bucket, dst).assert_error(404, "NoSuchKey")


@pytest.mark.rule("storage.copy-object.destination-if-unmodified-since-missing")
@pytest.mark.parametrize("when", ["past", "future"])
def test_destination_if_unmodified_since_missing(s3, bucket, names, when):
    """ext-copy-destination-if-unmodified-since on a missing destination passes: the copy is made.

    The provider's conditional-operations page: If-Unmodified-Since succeeds when the key does
    not exist (nothing was modified after the date), whatever the date.
    """
    date = PAST if when == "past" else _future()
    reply, dst = _copy_to_missing(s3, bucket, names, "if-unmodified-since", date)
    reply.assert_ok()
    assert s3.wire.get_object(bucket, dst).assert_ok().body == SOURCE, "the copy was not made"


@pytest.mark.rule("storage.copy-object.destination-if-none-match")
@pytest.mark.parametrize("which", ["etag", "star"])
def test_destination_if_none_match_unmet(s3, pair, which):
    """ext-copy-destination-if-none-match matching the destination answers 412."""
    value = pair[3] if which == "etag" else "*"
    _refused(s3, pair, _copy(s3, pair, "if-none-match", value))


@pytest.mark.rule("storage.copy-object.destination-if-modified-since")
def test_destination_if_modified_since_unmet(s3, pair):
    """ext-copy-destination-if-modified-since a future date answers 412."""
    _refused(s3, pair, _copy(s3, pair, "if-modified-since", _future()))


@pytest.mark.rule("storage.copy-object.destination-if-unmodified-since")
def test_destination_if_unmodified_since_unmet(s3, pair):
    """ext-copy-destination-if-unmodified-since a past date answers 412."""
    _refused(s3, pair, _copy(s3, pair, "if-unmodified-since", PAST))


@pytest.mark.rule("storage.copy-object.destination-condition-met")
@pytest.mark.parametrize(
    "suffix", ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"]
)
def test_destination_condition_met_copies(s3, pair, suffix):
    """A destination condition that holds lets the copy replace the destination."""
    value = {
        "if-match": pair[3],
        "if-none-match": OTHER_ETAG,
        "if-modified-since": PAST,
        "if-unmodified-since": _future(),
    }[suffix]
    _copy(s3, pair, suffix, value).assert_ok()
    bucket, _, dst, _ = pair
    assert s3.wire.get_object(bucket, dst).assert_ok().body == SOURCE
