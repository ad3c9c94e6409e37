"""What an HTTP/1.1 header may carry, and stored text made fit to be one.

Why: metadata reaches the store through paths that never were header fields (a binding's
`httpMetadata` / `customMetadata`, a CORS document's `ExposeHeader`, GetObject's `response-*`
query parameters), so it may hold a line break, a NUL or a character beyond Latin-1. Sent as
a header, uvicorn refuses the first (the connection is dropped with no answer) and Starlette
cannot encode the last (500): the object could no longer be read over S3 at all.
"""

from __future__ import annotations

import base64
import re

# RFC 9110 5.1 field-name: a token
_TOKEN = re.compile(r"\A[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
# RFC 9110 5.5 field-value characters: HTAB, visible ASCII, SP and obs-text (as Latin-1)
_FIELD_TEXT = re.compile(r"\A[\t\x20-\x7e\x80-\xff]*\Z")


def is_token(name: str) -> bool:
    """Whether `name` may be a header field name."""
    return bool(_TOKEN.match(name))


def is_field_text(value: str) -> bool:
    """Whether `value` can be sent as a header field value unchanged."""
    return bool(_FIELD_TEXT.match(value))


def field_value(value: str) -> str:
    """`value` itself when it can be a header value; otherwise its RFC 2047 encoded-word
    (`=?UTF-8?B?...?=`), as S3 returns metadata values that are not plain header text."""
    if is_field_text(value):
        return value
    encoded = base64.b64encode(value.encode("utf-8", "replace")).decode("ascii")
    return f"=?UTF-8?B?{encoded}?="
