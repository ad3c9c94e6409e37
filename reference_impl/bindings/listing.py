"""list(): one page of keys and delimited prefixes, ended early by the metadata budget.

A page holds at most `limit` entries and, since 2022-07-19, ends before the metadata it carries
would exceed `profile.bindings_list_metadata_budget` (always at least one entry), truncated with a
cursor, rather than failing. The cursor is opaque to callers: the last key the page covered,
or, when the page ended on a delimited prefix, the least key past that prefix's keys.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reference_impl.bindings import objects
from reference_impl.bindings.errors import store_error, type_error
from reference_impl.storage.key_order import successor

if TYPE_CHECKING:
    from reference_impl.bindings.bucket import BindingBucket

OP = "list"
MAX_LIMIT = 1000
INCLUDE_KINDS = ("httpMetadata", "customMetadata")
PAGE_ROWS = 500  # rows the store reads at a time (a page restarts after each prefix)


@dataclass(frozen=True)
class Page:
    doc: dict[str, Any]
    over_budget: bool


@dataclass(frozen=True)
class Position:
    """Where a listing starts: keys above `after` and from `start_at` (either may be None)."""

    after: str | None = None
    start_at: str | None = None


def encode_cursor(position: Position) -> str:
    """`{"after": key}` past an object, `{"from": successor}` past a delimited prefix."""
    doc = {"after": position.after} if position.start_at is None else {"from": position.start_at}
    return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode()


def decode_cursor(cursor: Any) -> Position:
    try:
        doc = json.loads(base64.urlsafe_b64decode(str(cursor).encode()))
    except (binascii.Error, ValueError, TypeError):
        raise store_error(OP, "The provided cursor is not valid", 10032) from None
    after, start_at = (doc.get("after"), doc.get("from")) if isinstance(doc, dict) else (0, 0)
    if not (isinstance(after, str) and start_at is None) and not (
        isinstance(start_at, str) and after is None
    ):
        raise store_error(OP, "The provided cursor is not valid", 10032)
    return Position(after, start_at)


def _options(options: dict[str, Any]) -> tuple[int, str, Position, str | None]:
    limit = options.get("limit", MAX_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise store_error(OP, f"limit must be an integer from 1 to {MAX_LIMIT}", 10022)
    prefix = str(options.get("prefix") or "")
    given = options.get("startAfter")
    position = Position(None if given is None else str(given))
    if options.get("cursor"):
        found = decode_cursor(options["cursor"])
        after = found.after if position.after is None else max(position.after, found.after or "")
        position = Position(after, found.start_at)
    delimiter = options.get("delimiter")
    if delimiter is not None and not isinstance(delimiter, str):
        raise type_error(OP, "delimiter must be a string")
    return limit, prefix, position, delimiter or None


def list_page(bucket: BindingBucket, options: dict[str, Any], include: tuple[str, ...]) -> Page:
    """One page. A delimited prefix is one entry: the walk restarts past its keys (at their
    successor) instead of reading them, so a page reads about `limit` rows however many keys
    a prefix holds, and a page that ends on one resumes past it."""
    unknown = [kind for kind in include if kind not in INCLUDE_KINDS]
    if unknown:
        raise type_error(OP, f"include takes {' and '.join(INCLUDE_KINDS)}, not {unknown[0]!r}")
    limit, prefix, start, delimiter = _options(options)
    position: Position | None = start
    budget = int(bucket.profile.bindings_list_metadata_budget)
    found: list[dict[str, Any]] = []
    prefixes: list[str] = []
    used, last, truncated, over = 0, None, False, False
    repeat = bool(bucket.profile.deviations.bindings_repeat_delimited_prefixes)
    store = bucket.ctx.store
    while position is not None:
        rows = min(limit - len(found) - len(prefixes) + 1, PAGE_ROWS)  # + the look-ahead
        records = store.iter_keys(
            bucket.account, bucket.name, prefix, position.after, position.start_at, rows
        )
        restart: Position | None = None
        for record in records:
            group = _group(record.key, prefix, delimiter)
            if len(found) + len(prefixes) >= limit:
                truncated = True
                break
            if group is not None:
                prefixes.append(group)
                if repeat:  # the deviation: one entry per key of the prefix
                    last = Position(record.key)
                    continue
                following = successor(group)  # None: no key sorts after this prefix's keys
                last = None if following is None else Position(None, following)
                restart = None if following is None else Position(position.after, following)
                break
            doc = bucket.describe(record, include)
            size = objects.metadata_size(doc)
            if used + size > budget and (found or prefixes):
                truncated = over = True
                break
            used += size
            found.append(doc)
            last = Position(record.key)
        position = None if truncated else restart
    page: dict[str, Any] = {
        "objects": found,
        "truncated": truncated,
        "delimitedPrefixes": prefixes,
    }
    if truncated and last is not None:
        page["cursor"] = encode_cursor(last)
    return Page(page, over)


def _group(key: str, prefix: str, delimiter: str | None) -> str | None:
    """The delimited prefix a key rolls up into, if any."""
    if delimiter is None:
        return None
    position = key.find(delimiter, len(prefix))
    return None if position < 0 else key[: position + len(delimiter)]
