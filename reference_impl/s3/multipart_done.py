"""Completed multipart uploads, remembered for a while so a retried completion gets its answer.

A client whose first CompleteMultipartUpload answer was lost retries it; S3 answers the retry
with the same success when it names the same parts, so the client learns its object was
published. The reference keeps each completion in memory for `REMEMBER_SECONDS` (at most
`MAX_REMEMBERED` of them; a restart forgets them) - docs/decisions.md.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

REMEMBER_SECONDS = 3600.0
MAX_REMEMBERED = 10_000


@dataclass(frozen=True)
class Completed:
    account: str
    bucket: str
    key: str
    pairs: tuple[tuple[int, str], ...]  # (part number, ETag) as the completion named them
    etag: str
    at: float


_DONE: OrderedDict[str, Completed] = OrderedDict()  # upload id -> completion, oldest first


def remember(upload_id: str, done: Completed) -> None:
    _DONE[upload_id] = done
    _DONE.move_to_end(upload_id)
    horizon = done.at - REMEMBER_SECONDS
    while _DONE and (len(_DONE) > MAX_REMEMBERED or next(iter(_DONE.values())).at < horizon):
        _DONE.popitem(last=False)


def recall(account: str, bucket: str, key: str, upload_id: str) -> Completed | None:
    """The completion of this upload of this key, if it happened recently enough."""
    done = _DONE.get(upload_id)
    if done is None or (done.account, done.bucket, done.key) != (account, bucket, key):
        return None
    if time.time() - done.at > REMEMBER_SECONDS:
        return None
    return done
