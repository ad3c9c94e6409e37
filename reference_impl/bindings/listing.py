"""list(): one page of keys and delimited prefixes, ended early by the metadata budget.

A page holds at most `limit` entries and, since 2022-07-19, ends before the metadata it carries
would exceed `profile.bindings_list_metadata_budget` (always at least one entry), truncated with a
cursor, rather than failing. The cursor is opaque to callers: the last key the page covered.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reference_impl.bindings import objects
from reference_impl.bindings.errors import store_error, type_error

if TYPE_CHECKING:
    from reference_impl.bindings.bucket import BindingBucket

OP = "list"
MAX_LIMIT = 1000
INCLUDE_KINDS = ("httpMetadata", "customMetadata")


@dataclass(frozen=True)
class Page:
    doc: dict[str, Any]
    over_budget: bool


def encode_cursor(after: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"after": after}).encode()).decode()


def decode_cursor(cursor: Any) -> str:
    try:
        after = json.loads(base64.urlsafe_b64decode(str(cursor).encode()))["after"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise store_error(OP, "The provided cursor is not valid", 10032) from None
    if not isinstance(after, str):
        raise store_error(OP, "The provided cursor is not valid", 10032)
    return after


def _options(options: dict[str, Any]) -> tuple[int, str, str | None, str | None]:
    limit = options.get("limit", MAX_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise store_error(OP, f"limit must be an integer from 1 to {MAX_LIMIT}", 10022)
    prefix = str(options.get("prefix") or "")
    after = options.get("startAfter")
    if options.get("cursor"):
        from_cursor = decode_cursor(options["cursor"])
        after = from_cursor if after is None else max(str(after), from_cursor)
    delimiter = options.get("delimiter")
    if delimiter is not None and not isinstance(delimiter, str):
        raise type_error(OP, "delimiter must be a string")
    return limit, prefix, None if after is None else str(after), delimiter or None


def list_page(bucket: BindingBucket, options: dict[str, Any], include: tuple[str, ...]) -> Page:
    unknown = [kind for kind in include if kind not in INCLUDE_KINDS]
    if unknown:
        raise type_error(OP, f"include takes {' and '.join(INCLUDE_KINDS)}, not {unknown[0]!r}")
    limit, prefix, after, delimiter = _options(options)
    budget = int(bucket.profile.bindings_list_metadata_budget)
    found: list[dict[str, Any]] = []
    prefixes: list[str] = []
    used, last, truncated, over = 0, None, False, False
    records = bucket.ctx.store.iter_keys(bucket.account, bucket.name, prefix, after)
    repeat = bool(bucket.profile.deviations.bindings_repeat_delimited_prefixes)
    for record in records:
        group = _group(record.key, prefix, delimiter)
        if group is not None and prefixes and prefixes[-1] == group and not repeat:
            last = record.key  # inside the prefix already listed
            continue
        if len(found) + len(prefixes) >= limit:
            truncated = True
            break
        if group is not None:
            prefixes.append(group)
            last = record.key
            continue
        doc = bucket.describe(record, include)
        size = objects.metadata_size(doc)
        if used + size > budget and (found or prefixes):
            truncated = over = True
            break
        used += size
        found.append(doc)
        last = record.key
    page: dict[str, Any] = {
        "objects": found,
        "truncated": truncated,
        "delimitedPrefixes": prefixes,
    }
    if truncated and last is not None:
        page["cursor"] = encode_cursor(_resume_after(last, prefix, delimiter))
    return Page(page, over)


def _group(key: str, prefix: str, delimiter: str | None) -> str | None:
    """The delimited prefix a key rolls up into, if any."""
    if delimiter is None:
        return None
    position = key.find(delimiter, len(prefix))
    return None if position < 0 else key[: position + len(delimiter)]


def _resume_after(last: str, prefix: str, delimiter: str | None) -> str:
    """Where the next page starts: past the whole group when the page ended inside one."""
    group = _group(last, prefix, delimiter)
    return last if group is None else group + "\U0010ffff"
