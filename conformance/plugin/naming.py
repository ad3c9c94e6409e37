"""Fresh resource names carrying the run prefix and the worker id.

The prefix is how cleanup recognises what this run created, and the only thing it deletes;
the worker id keeps one worker's end-of-session cleanup away from another's live buckets.
"""

from __future__ import annotations

import itertools
import secrets


class Names:
    def __init__(self, run_prefix: str, worker_id: str) -> None:
        self.run_prefix = run_prefix
        self.worker_prefix = f"{run_prefix}-{worker_id.lower()}-"
        self._counter = itertools.count(1)

    def bucket(self) -> str:
        """A bucket name no other test of the run uses (3-63 lowercase characters)."""
        return f"{self.worker_prefix}{next(self._counter)}{secrets.token_hex(3)}"

    def key(self, suffix: str = "") -> str:
        """An object key unique in the run; `suffix` is appended as is."""
        return f"{self.worker_prefix}k{next(self._counter)}{secrets.token_hex(3)}{suffix}"
