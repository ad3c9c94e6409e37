"""Units of the reference's CORS, Content-Type and checksum helpers (no server needed)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from reference_impl.s3 import content_type
from reference_impl.s3.cors import valid_origin
from reference_impl.services import cors_rules


@pytest.mark.parametrize(
    ("origin", "valid"),
    [
        ("*", True),
        ("https://example.com", True),
        ("http://localhost:8080", True),
        ("https://*.example.com", True),
        ("example.com", False),
        ("https://example.com/path", False),
        ("https://example.com?q=1", False),
        ("https://user@example.com", False),
        ("https://*.*.example.com", False),
        ("https://example.com:99999", False),
        ("not an origin", False),
        ("", False),
    ],
)
def test_valid_origin(origin: str, valid: bool) -> None:
    assert valid_origin(origin) is valid


def _ctx(case_insensitive: bool = True) -> Any:
    profile = SimpleNamespace(cors_allowed_headers_case_insensitive=case_insensitive)
    return SimpleNamespace(profile=profile)


RULES = [
    {
        "origins": ["https://a.example"],
        "methods": ["GET"],
        "headers": ["X-Named", "x-amz-*"],
        "expose": [],
        "max_age": None,
    },
    {"origins": ["*"], "methods": ["PUT"], "headers": ["*"], "expose": [], "max_age": None},
]


def test_find_rule_matches_method_origin_and_headers() -> None:
    ctx = _ctx()
    assert cors_rules.find_rule(ctx, RULES, "https://a.example", "GET", ["x-named"]) is RULES[0]
    assert cors_rules.find_rule(ctx, RULES, "https://a.example", "GET", ["x-amz-date"]) is RULES[0]
    assert cors_rules.find_rule(ctx, RULES, "https://a.example", "GET", ["other"]) is None
    assert cors_rules.find_rule(ctx, RULES, "https://b.example", "GET") is None
    assert cors_rules.find_rule(ctx, RULES, "https://b.example", "PUT", ["any"]) is RULES[1]


def test_find_rule_case_sensitive_before_the_change() -> None:
    ctx = _ctx(case_insensitive=False)
    assert cors_rules.find_rule(ctx, RULES, "https://a.example", "GET", ["x-named"]) is None
    assert cors_rules.find_rule(ctx, RULES, "https://a.example", "GET", ["X-Named"]) is RULES[0]


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"\x89PNG\r\n\x1a\nrest", "image/png"),
        (b"%PDF-1.7", "application/pdf"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"\x00\x00\x00\x18ftypmp42", "video/mp4"),
        (b"plain text", None),
    ],
)
def test_sniff(head: bytes, expected: str | None) -> None:
    assert content_type.sniff(head) == expected
