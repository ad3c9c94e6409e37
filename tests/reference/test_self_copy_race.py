"""A defect found by a hostile review (fixed, reference_impl/s3/copy.py): a copy of an object
onto itself (MetadataDirective REPLACE, the usual way to change an object's metadata) that a
DeleteObject of the key overtook while the bytes were copied published anyway: the delete had
answered 204, and the object was back afterwards, with no write ordered after the delete.

No order of the two requests gives that: a copy ordered before the delete leaves nothing, one
ordered after it finds no source (NoSuchKey). The copy now publishes only while the key still
holds the object it copied (checked in the publish transaction): NoSuchKey when it is gone,
TooMuchConcurrency when another write replaced it (docs/reference-choices.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import botocore.exceptions

BODY = os.urandom(24 * 1024 * 1024)  # a copy long enough for the delete to land inside it


def _self_copy(s3: Any, bucket: str, key: str) -> str:
    try:
        s3.copy_object(
            Bucket=bucket, Key=key, CopySource={"Bucket": bucket, "Key": key},
            MetadataDirective="REPLACE", Metadata={"note": "changed"},
        )  # fmt: skip
    except botocore.exceptions.ClientError as exc:
        return str(exc.response["Error"]["Code"])
    return "ok"


def _rounds(s3: Any, bucket: str, interfere: Any) -> Iterator[tuple[int, str, str]]:
    """Six rounds of a self-copy with `interfere(key)` landing a little later each time:
    (round, key, the copy's outcome) once both have answered."""
    with ThreadPoolExecutor(1) as pool:
        for round_ in range(6):
            key = f"object-{round_}"
            s3.put_object(Bucket=bucket, Key=key, Body=BODY)
            copying = pool.submit(_self_copy, s3, bucket, key)
            time.sleep(0.01 * round_)
            interfere(key)
            yield round_, key, copying.result(timeout=60)


def test_a_delete_inside_a_self_copy_stays_deleted(s3: Any, bucket: str) -> None:
    outcomes = []
    # the DeleteObject answers 204: the key is gone from then on
    for round_, key, outcome in _rounds(
        s3, bucket, lambda k: s3.delete_object(Bucket=bucket, Key=k)
    ):
        outcomes.append(outcome)
        assert outcome in ("ok", "NoSuchKey"), outcome
        listed = s3.list_objects_v2(Bucket=bucket, Prefix=key).get("KeyCount", 0)
        assert listed == 0, f"round {round_}: deleted, yet back after a copy ({outcomes})"


def test_a_write_inside_a_self_copy_is_not_lost(s3: Any, bucket: str) -> None:
    newer = b"written while the copy ran"
    # the PutObject answers 200: its bytes are the object's from then on
    writes = lambda k: s3.put_object(Bucket=bucket, Key=k, Body=newer)  # noqa: E731
    for round_, key, outcome in _rounds(s3, bucket, writes):
        assert outcome in ("ok", "TooMuchConcurrency"), outcome
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        assert body == newer, f"round {round_}: the write was lost to the copy ({outcome})"
