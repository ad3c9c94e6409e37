"""Bounded JSON for every body the reference parses: size, nesting depth, RFC 8259 literals.

Python's decoder accepts what RFC 8259 does not (`NaN`, `Infinity`, `-Infinity`), lets a
`\\ud800` escape become a string no UTF-8 encoder takes (I-JSON, RFC 7493, forbids it) and recurses
once per nesting level, so a body nested ~1000 deep is a RecursionError in whatever walks the
parsed document next (or a C stack overflow when a library raised the recursion limit). It also
keeps the last of an object's repeated names (RFC 8259 section 4 leaves that to the parser; I-JSON
forbids it): a caller that asks for `unique_keys` gets a refusal instead. Each surface parses its
bodies here and turns `JsonBodyError` into its own clear 4xx.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any, NoReturn

from reference_impl import numbers, offload

SURROGATE_ESCAPE = re.compile(rb"\\[uU][dD][89a-fA-F]")


class JsonBodyError(ValueError):
    """The body is not a JSON document the reference takes; `too_large` says which refusal."""

    def __init__(self, message: str, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


def _not_json(name: str) -> NoReturn:
    raise JsonBodyError(f"{name} is not JSON (RFC 8259)")


def too_deep(body: bytes, limit: int) -> bool:
    """True when arrays/objects nest deeper than `limit` (checked before the decoder runs)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth, in_string, escaped = 0, False, False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose names are all different (the decoder's `object_pairs_hook`)."""
    doc: dict[str, Any] = {}
    for name, value in pairs:
        if name in doc:
            raise JsonBodyError(f"duplicate name {name!r} in a JSON object (RFC 7493 I-JSON)")
        doc[name] = value
    return doc


def loads(body: bytes, max_depth: int, unique_keys: bool = False) -> Any:
    """The parsed document; JsonBodyError when it is not strict JSON, nests too deep or, with
    `unique_keys`, repeats a name within one object."""
    if too_deep(body, max_depth):
        raise JsonBodyError(f"JSON nested deeper than {max_depth} levels")
    try:
        doc = json.loads(
            body.decode("utf-8"),
            object_pairs_hook=_unique if unique_keys else None,
            parse_constant=_not_json,
            parse_int=numbers.json_number,
            parse_float=numbers.json_number,
        )
    except UnicodeDecodeError:
        raise JsonBodyError("body is not UTF-8") from None
    except RecursionError:
        raise JsonBodyError(f"JSON nested deeper than {max_depth} levels") from None
    except JsonBodyError:
        raise
    except ValueError as exc:
        raise JsonBodyError(f"body is not JSON: {exc}") from None
    if SURROGATE_ESCAPE.search(body) and _has_lone_surrogate(doc):
        raise JsonBodyError("a string holds a lone surrogate escape (RFC 7493 I-JSON)")
    return doc


INLINE_BYTES = 64 * 1024  # smaller bodies parse on the loop: cheaper than a thread hop


async def loads_bounded(body: bytes, max_depth: int, unique_keys: bool = False) -> Any:
    """`loads` for a request body: a large one is parsed on the `parse` worker, never on the
    event loop. The number hooks run Python per number: on the loop a 1 MB array of numbers
    (an anonymous JSON-RPC body) held every surface ~0.5 s, eight at once over a second."""
    if len(body) <= INLINE_BYTES:
        return loads(body, max_depth, unique_keys)
    return await offload.run("parse", loads, body, max_depth, unique_keys)


def _has_lone_surrogate(doc: Any) -> bool:
    """Any string (key or value) that is not valid Unicode; iterative, depth is bounded."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


async def read_limited(stream: AsyncIterator[bytes], declared: str, limit: int) -> bytes:
    """The whole body, refused (too_large) as soon as it is declared or grows beyond `limit`."""
    if declared and not numbers.is_decimal(declared):
        raise JsonBodyError("Content-Length is not a decimal number")
    if declared and int(declared) > limit:
        raise JsonBodyError(f"body larger than {limit} bytes", too_large=True)
    chunks, size = [], 0
    async for chunk in stream:
        size += len(chunk)
        if size > limit:
            raise JsonBodyError(f"body larger than {limit} bytes", too_large=True)
        chunks.append(chunk)
    if size <= INLINE_BYTES:
        return b"".join(chunks)
    # bytes.join drops the GIL while copying large buffers: on a worker the loop runs meanwhile
    # (a 128 MiB bindings bridge body joined on the loop held every surface ~0.1 s)
    return await offload.run("parse", b"".join, chunks)
