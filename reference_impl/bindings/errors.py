"""Errors the binding throws, as the bridge reports them: `{name, message}`.

The workers binding throws `TypeError` for arguments it cannot accept and `Error` with a
numbered message for refusals of the store; the bridge keeps that split so that a client can
tell a clean refusal from an internal error (which the binding must never produce for bad input).
"""

from __future__ import annotations


class BindingError(Exception):
    """A refusal the binding reports to its caller (not a crash of the implementation)."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "message": self.message}


def type_error(operation: str, message: str) -> BindingError:
    return BindingError("TypeError", f"{operation}: {message}")


def store_error(operation: str, message: str, code: int) -> BindingError:
    """A refusal of the store, numbered like the provider's binding errors."""
    return BindingError("Error", f"{operation}: {message} ({code})")


class InternalError(Exception):
    """What a deviating reference raises on purpose; the bridge answers it as an internal error."""
