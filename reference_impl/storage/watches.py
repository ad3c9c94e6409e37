"""Watches on keys: did anything write or delete this key since I started looking?

Why: a migration fetch (services/migration/source.py) reads a missing key from the source
for as long as the source takes, then publishes it. A PUT or a DELETE of that key acknowledged
meanwhile is newer than the fetched copy, so the copy must not be published over it, nor bring
back a key the DELETE removed (issue 26). The store tells the watches of every key it writes or
deletes (and of every key of a bucket it deletes); the fetch publishes only if its watch heard
nothing. Only keys being watched cost memory: a watch lives as long as its fetch.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

KeyId = tuple[str, str, str]  # (account, bucket, key)


class Watch:
    """One watcher's view of one key: `changed` once any write or delete of it happened."""

    __slots__ = ("changed", "key")

    def __init__(self, key: KeyId) -> None:
        self.key = key
        self.changed = False


class KeyWatches:
    """The watches in force; thread-safe (writes may commit off the event loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_key: dict[KeyId, set[Watch]] = {}

    @contextmanager
    def watch(self, account: str, bucket: str, key: str) -> Iterator[Watch]:
        """A watch on the key for the duration of the `with` block."""
        found = Watch((account, bucket, key))
        with self._lock:
            self._by_key.setdefault(found.key, set()).add(found)
        try:
            yield found
        finally:
            with self._lock:
                held = self._by_key.get(found.key)
                if held is not None:
                    held.discard(found)
                    if not held:
                        del self._by_key[found.key]

    def key_changed(self, account: str, bucket: str, key: str) -> None:
        if not self._by_key:  # the usual case: nobody watches, no lock taken
            return
        with self._lock:
            for found in self._by_key.get((account, bucket, key), ()):
                found.changed = True

    def bucket_changed(self, account: str, bucket: str) -> None:
        """The bucket was deleted: every watched key of it changed."""
        if not self._by_key:
            return
        with self._lock:
            for (owner, name, _), held in self._by_key.items():
                if (owner, name) == (account, bucket):
                    for found in held:
                        found.changed = True
