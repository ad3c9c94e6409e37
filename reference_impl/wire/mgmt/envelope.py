"""The response envelope of the management API and its error table (data in errors.yaml).

Every answer, success or failure, goes through `ok` / `fail` so that the envelope decision
(decisions.md, "Envelope everywhere") holds in one place, and so do its deliberate deviations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from starlette.responses import JSONResponse

from reference_impl import yaml_data
from reference_impl.profile import Profile


@dataclass(frozen=True)
class ErrorDef:
    status: int
    code: int
    message: str


@cache
def error_table() -> dict[str, ErrorDef]:
    text = (resources.files("reference_impl.wire.mgmt") / "errors.yaml").read_text(encoding="utf-8")
    return {key: ErrorDef(**body) for key, body in yaml_data.load(text).items()}


@dataclass
class ApiError(Exception):
    """A refusal: error key of errors.yaml, optional detail, JSON pointer and error chain."""

    key: str
    detail: str | None = None
    pointer: str | None = None
    chain: list[str] = field(default_factory=list)

    @property
    def definition(self) -> ErrorDef:
        return error_table()[self.key]

    def as_error(self, with_pointer: bool = True) -> dict[str, Any]:
        definition = self.definition
        message = definition.message + (f": {self.detail}" if self.detail else "")
        error: dict[str, Any] = {"code": definition.code, "message": message}
        if self.pointer and with_pointer:
            error["source"] = {"pointer": self.pointer}
        if self.chain:
            error["error_chain"] = [
                {"code": error_table()[k].code, "message": error_table()[k].message}
                for k in self.chain
            ]
        return error


def drop_fields(profile: Profile, kind: str, shown: dict[str, Any]) -> dict[str, Any]:
    """Remove the `kind.field` names of deviation `drop_fields` from an answer (break-checks)."""
    for name in profile.deviations.drop_fields or ():
        owner, _, key = name.partition(".")
        if owner == kind:
            shown.pop(key, None)
    return shown


def ok(profile: Profile, result: Any, status: int = 200) -> JSONResponse:
    if profile.deviations.bare_result:
        return JSONResponse(result, status_code=status)
    body = {"result": result, "success": True, "errors": [], "messages": []}
    body.update(profile.deviations.success_envelope or {})
    return JSONResponse(body, status_code=status)


def fail(profile: Profile, error: ApiError) -> JSONResponse:
    shown = error.as_error(with_pointer=not profile.deviations.error_without_pointer)
    drop_fields(profile, "error", shown)
    body = {
        "result": None,
        "success": False,
        "errors": [shown],
        "messages": [],
    }
    return JSONResponse(body, status_code=error.definition.status)
