"""CORS rules compiled once per stored configuration: linear-time origin and header matching.

S3 patterns know one wildcard, `*` (an AllowedOrigin holds at most one; an AllowedHeader may
hold more), matched case-insensitively for origins. Matching used to recompile every pattern
with `fnmatch` on every request: 60,000 wildcard origins cost seconds of the shared event loop
per anonymous preflight. Here a configuration is indexed once: exact patterns in a dict,
one-star patterns by prefix then suffix (a lookup per distinct prefix and suffix length), and
patterns with several stars checked by a left-to-right scan (no backtracking). No regex.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


class PatternIndex:
    """Which tags carry a pattern matching a value; each pattern is added with its tag."""

    def __init__(self) -> None:
        self.size = 0  # patterns added
        self._exact: dict[str, set[int]] = {}
        # len(prefix) -> prefix -> len(suffix) -> suffix -> tags
        self._star: dict[int, dict[str, dict[int, dict[str, set[int]]]]] = {}
        self._multi: list[tuple[list[str], int]] = []

    def add(self, pattern: str, tag: int) -> None:
        self.size += 1
        stars = pattern.count("*")
        if stars == 0:
            self._exact.setdefault(pattern, set()).add(tag)
        elif stars == 1:
            prefix, suffix = pattern.split("*")
            by_prefix = self._star.setdefault(len(prefix), {}).setdefault(prefix, {})
            by_prefix.setdefault(len(suffix), {}).setdefault(suffix, set()).add(tag)
        else:
            self._multi.append((pattern.split("*"), tag))

    def tags(self, value: str) -> set[int]:
        found = set(self._exact.get(value, ()))
        size = len(value)
        for prefix_len, by_prefix in self._star.items():
            if prefix_len > size:
                continue
            group = by_prefix.get(value[:prefix_len])
            if group is None:
                continue
            for suffix_len, by_suffix in group.items():
                if prefix_len + suffix_len <= size:
                    tags = by_suffix.get(value[size - suffix_len :])
                    if tags:
                        found.update(tags)
        for parts, tag in self._multi:
            if tag not in found and _scan(parts, value):
                found.add(tag)
        return found

    def matches(self, value: str) -> bool:
        return bool(self.tags(value))


def _scan(parts: list[str], value: str) -> bool:
    """`*`-separated parts against value: fixed ends, middle parts leftmost in order."""
    head, tail = parts[0], parts[-1]
    if len(head) + len(tail) > len(value) or not value.startswith(head):
        return False
    if not value.endswith(tail):
        return False
    position, end = len(head), len(value) - len(tail)
    for part in parts[1:-1]:
        found = value.find(part, position, end)
        if found < 0:
            return False
        position = found + len(part)
    return True


class CompiledRules:
    """A bucket's CORS rules, ready to answer "which rule allows this request" (first wins)."""

    def __init__(self, rules: Sequence[dict[str, Any]], fold_headers: bool) -> None:
        self.rules = list(rules)
        self._fold = fold_headers
        self._origins = PatternIndex()
        self._methods: list[frozenset[str]] = []
        self._headers: list[PatternIndex] = []
        for index, rule in enumerate(self.rules):
            for origin in rule["origins"]:
                self._origins.add(origin.lower(), index)
            self._methods.append(frozenset(rule["methods"]))
            allowed = PatternIndex()
            for header in rule["headers"]:
                if header:
                    allowed.add(header.lower() if fold_headers else header, 0)
            self._headers.append(allowed)
        self.size = self._origins.size + sum(h.size for h in self._headers)

    def find(
        self, origin: str, method: str, headers: Iterable[str] | None = None
    ) -> dict[str, Any] | None:
        """The first rule allowing origin, method and (for a preflight) every named header."""
        wanted = [h.lower() if self._fold else h for h in headers or ()]
        for index in sorted(self._origins.tags(origin.lower())):
            if method not in self._methods[index]:
                continue
            allowed = self._headers[index]
            if all(allowed.matches(h) for h in wanted):
                return self.rules[index]
        return None
