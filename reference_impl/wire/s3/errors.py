"""S3 errors: one exception type, statuses and messages from `errors.yaml`."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from reference_impl import yaml_data


@cache
def error_table() -> dict[str, dict[str, Any]]:
    text = (resources.files("reference_impl.wire.s3") / "errors.yaml").read_text(encoding="utf-8")
    table: dict[str, dict[str, Any]] = yaml_data.load(text)
    return table


class S3Error(Exception):
    """Raised anywhere in a handler; rendered as `<Error>` XML by the app."""

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        **details: str,
    ) -> None:
        entry = error_table()[code]
        self.code = code
        self.status: int = entry["status"]
        self.message = message or entry["message"]
        self.headers = headers or {}
        self.details = details  # extra child elements, e.g. BucketName, Key
        super().__init__(f"{code}: {self.message}")
