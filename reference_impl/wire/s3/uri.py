"""Percent-decoding of request paths, queries and copy sources: UTF-8 or nothing.

`urllib.parse.unquote` replaces bytes that are not UTF-8 with U+FFFD, so `x%ff`, `x%fe` and
`x%80` all named one key `x\ufffd` and overwrote each other (issue 16). Here such text is
refused instead: callers answer 400 (InvalidURI, docs/reference-choices.md).
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes


def utf8_unquote(text: str) -> str:
    """Decode `text`, the latin-1 view of raw request bytes; ValueError unless it is UTF-8.

    Raw bytes and %XX escapes decode together, so an escaped and a raw spelling of the same
    UTF-8 bytes name the same key.
    """
    if "%" not in text and text.isascii():
        return text  # the common case: nothing to decode
    return unquote_to_bytes(text.encode("latin-1")).decode("utf-8")
