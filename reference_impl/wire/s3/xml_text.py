"""Text that may go into an XML 1.0 document: characters XML cannot carry are percent-encoded.

Keys and paths may hold control characters (`\\x00`, `\\x01`, ...) that XML 1.0 forbids even as
character references; echoing one into an error's `<Resource>` or `<Key>` made the whole error
document unparseable, so clients saw no error code at all.
"""

from __future__ import annotations

import re

from markupsafe import escape

# XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _encode(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8", "surrogatepass"))


def xml_safe(text: str) -> str:
    """`text` with each character XML 1.0 cannot carry replaced by its UTF-8 %XX form."""
    return _NOT_XML.sub(_encode, text)


# characters no key may hold (docs/reference-choices.md "Keys an XML page can carry"): outside
# XML 1.0's Char, and CR, which every XML parser reads back as LF (so a listed key would name
# another)
_NOT_IN_KEYS = re.compile("[^\t\n\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def fits_xml(text: str) -> bool:
    """True when `text` reads back unchanged from an XML 1.0 element (a key, a prefix)."""
    return _NOT_IN_KEYS.search(text) is None


_MARKUP = re.compile("[&<>'\"]")


def xml_escape(text: str) -> str:
    """`text` escaped exactly as Jinja's autoescape (markupsafe) does; unchanged if nothing to.

    For values rendered per entry outside a template: most have nothing to escape, and
    markupsafe builds a Markup object for each.
    """
    return text if _MARKUP.search(text) is None else str(escape(text))
