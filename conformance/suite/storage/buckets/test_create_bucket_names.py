"""Bucket name rules: a-z0-9-, 3 to 63 characters, no hyphen at either end."""

from __future__ import annotations

import pytest


def _create(s3, name):
    """CreateBucket; a bucket that was created (empty) is deleted again at once, on the wire:
    boto3 itself refuses to send some of these names, so the run's cleanup could not."""
    reply = s3.wire.create_bucket(name)
    if 200 <= reply.status < 300:
        s3.wire.request("DELETE", name)
    return reply


def _sized(names, length):
    """A fresh run-prefixed name padded (or cut) to exactly `length` characters."""
    base = names.bucket()
    return (base + "x" * length)[:length]


@pytest.mark.rule("storage.create-bucket.invalid-name-code")
@pytest.mark.parametrize("bad", ["UPPER", "under_score", "dot.ted"])
def test_invalid_name_is_400_invalid_bucket_name(s3, names, bad):
    """An invalid bucket name answers HTTP 400 with code InvalidBucketName."""
    _create(s3, f"{names.bucket()}-{bad}").assert_error(400, "InvalidBucketName")


@pytest.mark.rule("storage.create-bucket.name-charset")
@pytest.mark.parametrize(
    "char", ["A", "_", ".", "~", "!"], ids=["upper", "underscore", "dot", "tilde", "bang"]
)
def test_characters_outside_the_set_are_refused(s3, names, char):
    """A name with a character outside a-z0-9- is refused; digits and hyphens are fine."""
    _create(s3, f"{names.bucket()}{char}x").assert_error(400, "InvalidBucketName")


@pytest.mark.rule("storage.create-bucket.name-charset")
def test_lowercase_digits_and_hyphens_are_accepted(s3, names):
    """A name of lower-case letters, digits and inner hyphens is accepted."""
    _create(s3, f"{names.bucket()}-a0-9z").assert_ok()


@pytest.mark.rule("storage.create-bucket.name-hyphen-edges")
@pytest.mark.parametrize("where", ["leading", "trailing"])
def test_hyphen_at_an_edge_is_refused(s3, names, where):
    """A name that starts or ends with a hyphen is refused with InvalidBucketName."""
    base = names.bucket()
    name = f"-{base}" if where == "leading" else f"{base}-"
    _create(s3, name).assert_error(400, "InvalidBucketName")


@pytest.mark.rule("storage.create-bucket.name-max-length")
@pytest.mark.parametrize("extra", [0, 1], ids=["at-limit", "over-by-one"])
def test_name_max_length(s3, names, expected, extra):
    """A name of the maximum length is accepted; one character more is InvalidBucketName."""
    reply = _create(s3, _sized(names, expected.bucket_name_max_chars + extra))
    if extra:
        reply.assert_error(400, "InvalidBucketName")
    else:
        reply.assert_ok()


@pytest.mark.rule("storage.create-bucket.name-min-length")
@pytest.mark.parametrize("missing", [0, 1], ids=["at-limit", "under-by-one"])
def test_name_min_length(s3, names, expected, missing):
    """A name of the minimum length is accepted; one character less is InvalidBucketName."""
    length = expected.bucket_name_min_chars - missing
    reply = _create(s3, names.bucket()[-length:])  # random hex tail: no prefix fits in 3
    if missing:
        reply.assert_error(400, "InvalidBucketName")
    else:
        reply.assert_ok()
