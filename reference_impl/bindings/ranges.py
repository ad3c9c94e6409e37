"""get()'s `range` option: `{offset, length}` or `{suffix}`, checked before any read.

A malformed range is a TypeError, never an internal error (2022-09-28); a range starting past
the end of the object is the store's "range not satisfiable" refusal.
"""

from __future__ import annotations

from typing import Any

from reference_impl.bindings.errors import BindingError, InternalError, store_error, type_error

OP = "get"


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise type_error(OP, f"range {name} must be a non-negative integer, got {value!r}")
    return value


def resolve(spec: Any, size: int, malformed_internal: bool = False) -> tuple[int, int] | None:
    """(start, length) of the range within an object of `size` bytes; None for no range."""
    if spec is None:
        return None
    try:
        return _resolve(spec, size)
    except BindingError as error:
        if malformed_internal and error.name == "TypeError":
            raise InternalError("range parsing failed") from None
        raise


def _resolve(spec: Any, size: int) -> tuple[int, int]:
    if not isinstance(spec, dict):
        raise type_error(OP, "range must be an object with offset/length or suffix")
    unknown = set(spec) - {"offset", "length", "suffix"}
    if unknown:
        raise type_error(OP, f"range has unknown fields {sorted(unknown)}")
    if "suffix" in spec:
        if "offset" in spec or "length" in spec:
            raise type_error(OP, "range suffix cannot be combined with offset or length")
        suffix = _count("suffix", spec["suffix"])
        take = min(suffix, size)
        return size - take, take
    if "offset" not in spec and "length" not in spec:
        raise type_error(OP, "range needs offset, length or suffix")
    offset = _count("offset", spec.get("offset", 0))
    length = _count("length", spec["length"]) if "length" in spec else None
    if offset > size or (offset == size and size > 0):
        raise store_error(OP, "The requested range is not satisfiable", 10039)
    available = size - offset
    return offset, available if length is None else min(length, available)
