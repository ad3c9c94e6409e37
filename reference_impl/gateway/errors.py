"""JSON-RPC 2.0 error codes and the exception that carries one to the envelope."""

from __future__ import annotations

from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000  # implementation-defined range -32000..-32099: upstream refusals
LIMIT_EXCEEDED = -32005  # EIP-1474: the request exceeds a limit (batch budget, queue)


class RpcError(Exception):
    """Raised anywhere below the envelope; always becomes a JSON-RPC error object, never a 500."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def as_object(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            obj["data"] = self.data
        return obj


def invalid_params(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"invalid params: {message}")
