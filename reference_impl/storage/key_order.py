"""Key order of the store (UTF-8 bytes, i.e. code points): the least key above a prefix's keys.

Listings that fold a delimited prefix into one entry skip the rest of its keys by restarting
there, never by reading them one by one (a prefix may hold millions of keys), and a page that
ended on such a prefix resumes there. Both the S3 listing and the bindings' list() use it.
"""

from __future__ import annotations


def successor(prefix: str) -> str | None:
    """The least string above every string that starts with `prefix`, in code point order
    (the store's UTF-8 byte order); None when there is none (only U+10FFFF characters).

    Surrogates are no characters of a key: after U+D7FF comes U+E000.
    """
    chars = list(prefix)
    while chars:
        last = ord(chars.pop())
        if last < 0x10FFFF:
            following = 0xE000 if 0xD7FF <= last < 0xE000 else last + 1
            return "".join(chars) + chr(following)
    return None
