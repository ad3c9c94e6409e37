"""Decimal numbers from clients: ASCII digits only, bounded in length and value.

Python's `str.isdigit()` and `int()` take far more than a protocol number: `"²".isdigit()` is
true yet `int("²")` raises, `int("٣")` (Arabic-Indic three) is 3, `int(" 7 ")` and `int("1_0")`
succeed, and a text of more than 4,300 digits raises ValueError (CPython's int max str digits).
Every number a client sends (headers, query parameters, XML text, JSON fields, cursors) is read
here, so the rule "ASCII `[0-9]` only, bounded" holds at every surface with one implementation.
Callers turn `NumberError` into their own clear 4xx.
"""

from __future__ import annotations

import math
import re
from typing import Any

_DIGITS = re.compile(r"[0-9]+\Z", re.ASCII)
MAX_DIGITS = 20  # enough for any 64-bit value; far under the int conversion limit
JSON_NUMBER_MAX_CHARS = 100  # a JSON number longer than this is refused (no value needs more)


class NumberError(ValueError):
    """The text is not a bounded decimal number; the message says why (safe to echo)."""


def is_decimal(text: str, max_digits: int = MAX_DIGITS) -> bool:
    """True when `text` is 1..max_digits ASCII digits and nothing else."""
    return 0 < len(text) <= max_digits and _DIGITS.match(text) is not None


def parse_decimal(
    text: str,
    *,
    name: str = "value",
    max_digits: int = MAX_DIGITS,
    max_value: int | None = None,
    min_value: int = 0,
) -> int:
    """The value of `text`, which must be ASCII digits only (no sign, space or underscore),
    at most `max_digits` long and within `min_value..max_value`."""
    if not is_decimal(text, max_digits):
        shown = text[:40].encode("ascii", "backslashreplace").decode()
        raise NumberError(f"{name} must be a decimal number of 1 to {max_digits} digits: {shown!r}")
    value = int(text)
    if value < min_value or (max_value is not None and value > max_value):
        top = "" if max_value is None else f" to {max_value}"
        raise NumberError(f"{name} must be in the range {min_value}{top}")
    return value


def json_number(text: str) -> Any:
    """`parse_int`/`parse_float` hook of `json.loads`: a finite number of bounded length.

    `1e999` would become `float('inf')`, which no JSON encoder writes back (stored, it made
    every later read a 500); a 10,000-digit integer costs quadratic time to convert.
    """
    if len(text) > JSON_NUMBER_MAX_CHARS:
        raise NumberError(f"a JSON number longer than {JSON_NUMBER_MAX_CHARS} characters")
    if "." in text or "e" in text or "E" in text:
        value = float(text)
        if not math.isfinite(value):
            raise NumberError(f"a JSON number out of range: {text[:40]}")
        return value
    return int(text)
