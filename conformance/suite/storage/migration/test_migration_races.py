"""Migration (sippy) racing writes: a fetch under way never undoes a newer PUT or a DELETE.

A GetObject of a key only the source holds starts a fetch; the fetched copy is older than any
write of the key the bucket acknowledges while the fetch runs. An implementer who publishes the
copy unconditionally once it arrived replaces an acknowledged PUT with the source's older bytes,
or brings back a key an acknowledged DELETE removed. The fetch is held half-way by a loopback
relay in front of the source (held_source.py), so the write lands while it is certainly under
way; N/A unless the source is a loopback server the relay can stand in front of.

The DELETE case is read with ListObjectsV2: a later GetObject may fetch the key again (the
source still has it, and that is what migration does), a listing never fetches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conformance.suite.setup_check import SetupFailed, not_checked, require
from conformance.suite.storage.migration.held_source import held_relay, loopback_endpoint
from conformance.suite.storage.migration.support import config_for, source_bucket

OLD = bytes(range(256)) * 2048  # 512 KiB at the source: the fetch is held after 64 KiB
HOLD_AFTER = 64 * 1024
HELD_WITHIN_S = 30.0
JOIN_S = 90.0
SECOND_READ_S = 20.0  # a target that joins the held fetch answers the second read only later


@contextmanager
def _fetch_held(
    s3: Any, mgmt: Any, bucket: str, names: Any, source: dict[str, Any], as_of: Any
) -> Iterator[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """A key only the source has, and a GetObject of it whose fetch is held half-way.

    Yields (key, drop_at_source, finish): `drop_at_source()` deletes the key at the source
    (not through the relay); `finish()` releases the source and returns the GET's reply.
    """
    upstream = loopback_endpoint(source)
    if upstream is None:
        not_checked("the migration source is not on loopback; a fetch cannot be held")
    name, key = names.bucket(), names.key(".bin")
    with source_bucket(source, name) as client, held_relay(upstream, HOLD_AFTER) as relay:
        client.put_object(Bucket=name, Key=key, Body=OLD)
        relayed = {**source, "endpoint": relay.endpoint}
        mgmt.put_sippy(bucket, config_for(as_of, relayed, name)).assert_envelope_ok()
        try:
            relay.arm()
            got: list[Any] = []
            reader = threading.Thread(
                target=lambda: got.append(s3.wire.get_object(bucket, key)), daemon=True
            )
            reader.start()

            def finish() -> Any:
                relay.release()
                reader.join(JOIN_S)
                require(got, "the GetObject that started the fetch never answered")
                return got[0]

            if not relay.held.wait(HELD_WITHIN_S):
                finish()
                raise SetupFailed(
                    "setup did not hold, the rule was not checked: the GetObject of a key only "
                    "the source has did not read it from the source (copies-objects' rule)"
                )
            yield key, lambda: client.delete_object(Bucket=name, Key=key), finish
        finally:
            relay.release()
            mgmt.delete_sippy(bucket)


def _keys(s3: Any, bucket: str) -> list[str]:
    listed = s3.wire.list_objects_v2(bucket).assert_ok()
    return [str(e.text) for e in listed.xml.iter() if e.tag == "Key"]


@pytest.mark.rule("storage.migration.fetch-keeps-newer-put")
def test_put_during_fetch_is_kept(s3, mgmt, bucket, names, migration_source, as_of):
    """A PUT acknowledged while the fetch runs stays: the fetched older copy never replaces it."""
    new = b"written while the fetch ran"
    with _fetch_held(s3, mgmt, bucket, names, migration_source, as_of) as (key, _, finish):
        put = s3.wire.put_object(bucket, key, new)
        reply = finish()
    put.assert_ok()
    reply.assert_ok()  # it began before the PUT: the source's bytes or the PUT's both do
    assert reply.body in (OLD, new), f"the racing GetObject answered {len(reply.body)} bytes"
    got = s3.wire.get_object(bucket, key).assert_ok()
    assert got.body == new, (
        f"after a PUT answered {put.status} during the fetch, GetObject returns "
        f"{'the source' if got.body == OLD else 'other'}'s {len(got.body)} bytes: the fetched "
        "older copy replaced an acknowledged write"
    )
    s3.wire.request("DELETE", bucket, key)


@pytest.mark.rule("storage.migration.fetch-keeps-delete")
def test_delete_during_fetch_stays_deleted(s3, mgmt, bucket, names, migration_source, as_of):
    """A DELETE acknowledged while the fetch runs is not undone by the fetch finishing."""
    with _fetch_held(s3, mgmt, bucket, names, migration_source, as_of) as (key, _, finish):
        deleted = s3.wire.request("DELETE", bucket, key)
        reply = finish()
    require(deleted.status in (200, 204), f"DeleteObject answered {deleted.describe()}")
    require(reply.status in (200, 404), f"the racing GetObject answered {reply.describe()}")
    keys = _keys(s3, bucket)
    assert key not in keys, (
        f"DeleteObject answered {deleted.status} while the fetch ran, yet the bucket lists "
        f"{key!r} afterwards: the fetch brought back a deleted key"
    )


@pytest.mark.rule("storage.migration.fetch-keeps-delete")
def test_delete_after_a_second_read_stays_deleted(s3, mgmt, bucket, names, migration_source, as_of):
    """While one fetch is held, the source loses the key and a second GetObject of it ends
    without a copy (404); a DELETE acknowledged then is not undone when the held fetch ends.

    An implementer who forgets every watcher of a key once any one fetch of it ends (not once
    the last one does) lets the held fetch miss the DELETE and bring the key back."""
    with _fetch_held(s3, mgmt, bucket, names, migration_source, as_of) as (key, drop, finish):
        drop()
        second: list[Any] = []
        reader = threading.Thread(
            target=lambda: second.append(s3.wire.get_object(bucket, key)), daemon=True
        )
        reader.start()
        reader.join(SECOND_READ_S)
        deleted = s3.wire.request("DELETE", bucket, key)
        reply = finish()
        reader.join(JOIN_S)
    require(deleted.status in (200, 204), f"DeleteObject answered {deleted.describe()}")
    require(reply.status in (200, 404), f"the racing GetObject answered {reply.describe()}")
    keys = _keys(s3, bucket)
    read = f"answered {second[0].status}" if second else "had not answered"
    assert key not in keys, (
        f"DeleteObject answered {deleted.status} while a fetch ran (a second read of the key, "
        f"gone from the source, {read}), yet the bucket lists {key!r} afterwards: the held "
        "fetch brought back a deleted key"
    )


@pytest.mark.rule("storage.migration.copies-objects")
def test_fetch_unaffected_by_another_bucket_deleted(
    s3, mgmt, bucket, names, migration_source, as_of
):
    """Another bucket deleted while a fetch runs does not concern the fetched key: the racing
    GetObject answers the source's bytes and the key is stored (listed) afterwards.

    An implementer who marks the fetches of every bucket but the deleted one (a flipped
    comparison) drops this copy and answers NoSuchKey for a key the source holds."""
    other = names.bucket()
    s3.wire.create_bucket(other).assert_ok()
    try:
        with _fetch_held(s3, mgmt, bucket, names, migration_source, as_of) as (key, _, finish):
            gone = s3.wire.request("DELETE", other)
            reply = finish()
    finally:
        s3.wire.request("DELETE", other)
    require(
        gone.status in (200, 204), f"DeleteBucket of an empty bucket answered {gone.describe()}"
    )
    reply.assert_ok()
    assert reply.body == OLD, f"the GetObject answered {len(reply.body)} bytes, not the source's"
    assert key in _keys(s3, bucket), "the fetched object was not stored in the bucket"
