"""Completed multipart uploads, remembered for a while so a retried completion gets its answer.

A client whose first CompleteMultipartUpload answer was lost retries it; S3 answers the retry
with the same success when it names the same parts, so the client learns its object was
published. The reference keeps each completion in memory for `REMEMBER_SECONDS` (at most
`MAX_REMEMBERED` of them; a restart forgets them) - docs/decisions.md. A completion belongs to
one creation of its bucket (the store's bucket generation): once the bucket is deleted, a
bucket created again under the same name never answers a retry of it.
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
    generation: int | None  # the bucket's generation when the upload completed
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


def recall(
    account: str, bucket: str, generation: int | None, key: str, upload_id: str
) -> Completed | None:
    """The completion of this upload of this key in this creation of the bucket, if it
    happened recently enough."""
    done = _DONE.get(upload_id)
    if done is None or generation is None:
        return None
    if (done.account, done.bucket, done.generation, done.key) != (account, bucket, generation, key):
        return None
    if time.time() - done.at > REMEMBER_SECONDS:
        return None
    return done
