"""CopyObject's conditions on its source: x-amz-copy-source-if-match, -if-none-match,
-if-modified-since and -if-unmodified-since.

The provider's S3 compatibility table marks all four implemented for CopyObject (not for
UploadPartCopy, so only CopyObject is checked). AWS's CopyObject reference defines each header
(copy only if the source's ETag matches / does not match, was / was not modified since the
date), the 412 Precondition Failed of an unmet one, and two pairs: a matching if-match with a
failing if-unmodified-since copies (200), a failing if-none-match with a met if-modified-since
is 412. Each case computes what to send from the source's own ETag and Last-Modified, read back
over HEAD: a date equal to Last-Modified is "not modified since" it (RFC 9110 13.1.3-4, the
comparison a cache's revalidation relies on), a day before it is "modified since". An
implementer who forgets a header, or lets if-unmodified-since decide beside a present if-match,
copies where the client asked not to (or refuses a copy S3 makes).
"""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any

import pytest

from conformance.clients import s3_multipart as mp

RULE = "storage.copy-object.source-conditions"
BODY = b"the source a condition is judged on " * 20
OTHER_ETAG = '"0123456789abcdef0123456789abcdef"'


@pytest.fixture
def source(s3: Any, bucket: str, names: Any) -> dict[str, str]:
    """A source object with its ETag, its Last-Modified and the day before it, as sent."""
    key = names.key()
    s3.wire.put_object(bucket, key, BODY).assert_ok()
    head = s3.wire.request("HEAD", bucket, key).assert_ok()
    etag, modified = head.header("etag"), head.header("last-modified")
    assert etag and modified, f"HEAD of the source has no ETag or Last-Modified: {head.headers}"
    moment = parsedate_to_datetime(modified)
    day_before = format_datetime(moment - dt.timedelta(days=1), usegmt=True)
    return {"key": key, "etag": etag, "modified": modified, "day-before": day_before}


def _copy(s3: Any, bucket: str, target: str, source: dict[str, str], **conditions: str) -> Any:
    headers = {
        s3.wire.vendor("copy-source-" + name.replace("_", "-")): value
        for name, value in conditions.items()
    }
    return mp.copy_object(s3.wire, bucket, target, f"/{bucket}/{source['key']}", headers)


def _copied(s3: Any, bucket: str, target: str) -> bool:
    got = s3.wire.get_object(bucket, target)
    assert got.status in (200, 404), got.describe()
    return bool(got.status == 200 and got.body == BODY)


# condition -> the value that leaves it unmet, from the source's ETag and dates
UNMET = {
    "if_match": lambda src: OTHER_ETAG,
    "if_none_match": lambda src: src["etag"],
    "if_modified_since": lambda src: src["modified"],
    "if_unmodified_since": lambda src: src["day-before"],
}
MET = {
    "if_match": lambda src: src["etag"],
    "if_none_match": lambda src: OTHER_ETAG,
    "if_modified_since": lambda src: src["day-before"],
    "if_unmodified_since": lambda src: src["modified"],
}


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("condition", sorted(UNMET))
def test_unmet_source_condition_is_412_and_copies_nothing(s3, bucket, names, source, condition):
    """One copy-source condition alone, unmet by the source: 412 PreconditionFailed, and the
    destination is not written."""
    target = names.key()
    reply = _copy(s3, bucket, target, source, **{condition: UNMET[condition](source)})
    reply.assert_error(412, "PreconditionFailed")
    assert not _copied(s3, bucket, target), f"{condition} unmet, yet the copy was written"


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("condition", sorted(MET))
def test_met_source_condition_copies(s3, bucket, names, source, condition):
    """One copy-source condition alone, met by the source: the copy is made."""
    target = names.key()
    _copy(s3, bucket, target, source, **{condition: MET[condition](source)}).assert_ok()
    assert _copied(s3, bucket, target), f"{condition} met, yet no copy of the source"


# AWS's CopyObject page, its two stated pairs: (the conditions as UNMET/MET keys, copied?)
PAIRS = {
    "if-match-true-outweighs-if-unmodified-since-false": (
        {"if_match": MET, "if_unmodified_since": UNMET}, True,
    ),
    "if-none-match-false-outweighs-if-modified-since-true": (
        {"if_none_match": UNMET, "if_modified_since": MET}, False,
    ),
}  # fmt: skip


@pytest.mark.rule(RULE)
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_the_stated_pairs_of_conditions(s3, bucket, names, source, pair):
    """if-match true with if-unmodified-since false copies (200); if-none-match false with
    if-modified-since true is 412 and copies nothing (AWS's CopyObject page)."""
    values, copies = PAIRS[pair]
    target = names.key()
    reply = _copy(s3, bucket, target, source, **{c: v[c](source) for c, v in values.items()})
    if copies:
        reply.assert_ok()
    else:
        reply.assert_error(412, "PreconditionFailed")
    assert _copied(s3, bucket, target) is copies, f"{pair}: copied is not {copies}"
