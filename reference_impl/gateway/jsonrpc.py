"""JSON-RPC 2.0 envelope: validating requests, batches, notifications, shaping responses.

Transport-agnostic: `handle` takes a parsed JSON document and a dispatch coroutine and returns
the response document, or None when nothing is to be sent (notifications only). `Envelope`
holds the profile's deviation switches so a test can break each rule on purpose.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from reference_impl.gateway.errors import INVALID_REQUEST, RpcError

Dispatch = Callable[[str, Any], Awaitable[Any]]


@dataclass(frozen=True)
class Envelope:
    drop_id: bool = False
    version: str | None = None
    result_with_error: bool = False
    error_code: int | None = None
    answer_notifications: bool = False
    empty_batch_array: bool = False
    batch_first_only: bool = False

    def _base(self, req_id: Any) -> dict[str, Any]:
        return {"jsonrpc": self.version or "2.0", "id": None if self.drop_id else req_id}

    def result(self, req_id: Any, result: Any) -> dict[str, Any]:
        return {**self._base(req_id), "result": result}

    def error(self, req_id: Any, err: RpcError) -> dict[str, Any]:
        obj = err.as_object()
        if self.error_code is not None:
            obj["code"] = self.error_code
        reply = {**self._base(req_id), "error": obj}
        if self.result_with_error:
            reply["result"] = None
        return reply


def valid_id(value: Any) -> bool:
    return (
        value is None
        or isinstance(value, str)
        or (isinstance(value, int | float) and not isinstance(value, bool))
    )


def check_request(item: Any) -> tuple[Any, RpcError | None]:
    """(id to answer with, error) for one request object; error None when it is valid."""
    if not isinstance(item, dict):
        return None, RpcError(INVALID_REQUEST, "invalid request: not a JSON object")
    if "id" in item and not valid_id(item["id"]):
        message = "invalid request: id must be a string, number or null"
        return None, RpcError(INVALID_REQUEST, message)
    req_id = item.get("id")
    if item.get("jsonrpc") != "2.0":
        return req_id, RpcError(INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"')
    if not isinstance(item.get("method"), str):
        return req_id, RpcError(INVALID_REQUEST, "invalid request: method must be a string")
    if "params" in item and not isinstance(item["params"], list | dict):
        return req_id, RpcError(INVALID_REQUEST, "invalid request: params must be array or object")
    return req_id, None


async def handle_one(item: Any, dispatch: Dispatch, env: Envelope) -> dict[str, Any] | None:
    req_id, err = check_request(item)
    if err is not None:
        return env.error(req_id, err)  # an invalid request is answered even without an id
    try:
        reply = env.result(req_id, await dispatch(item["method"], item.get("params")))
    except RpcError as exc:
        reply = env.error(req_id, exc)
    if "id" not in item and not env.answer_notifications:
        return None
    return reply


async def handle(doc: Any, dispatch: Dispatch, env: Envelope, max_batch: int) -> Any:
    """The response document for a parsed body, or None when nothing is to be sent."""
    if not isinstance(doc, list):
        return await handle_one(doc, dispatch, env)
    if not doc:
        if env.empty_batch_array:
            return []
        return env.error(None, RpcError(INVALID_REQUEST, "invalid request: empty batch"))
    if len(doc) > max_batch:
        message = f"invalid request: batch of {len(doc)} exceeds {max_batch} requests"
        return env.error(None, RpcError(INVALID_REQUEST, message))
    items = doc[:1] if env.batch_first_only else doc
    replies = [reply for item in items if (reply := await handle_one(item, dispatch, env))]
    return replies or None
