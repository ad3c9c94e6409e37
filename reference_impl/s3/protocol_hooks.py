"""Checks and touches that apply to every S3 operation, around the handler.

Kept out of the handlers so that the dated, operation-independent behaviours (presigned list
operations, CORS response headers, parameters that must be ignored) live in one place.
"""

from __future__ import annotations

from urllib.parse import unquote

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3 import content_type, cors_match
from reference_impl.s3.call import Call
from reference_impl.s3.dispatch import SUBRESOURCES
from reference_impl.wire.s3.errors import S3Error

SIGNATURE = "X-Amz-Signature"
X_ID_OPERATIONS = {  # what an x-id value claims, for the deviation only
    "GetObject": ("GET", True),
    "PutObject": ("PUT", True),
    "DeleteObject": ("DELETE", True),
    "ListObjectsV2": ("GET", False),
    "ListObjects": ("GET", False),
}


def _is_list(call: Call) -> bool:
    return call.method == "GET" and call.key is None and not (SUBRESOURCES & set(call.query))


def _signed_in_query(call: Call) -> bool:
    """Whether a query parameter is named X-Amz-Signature, decoded as Starlette's query_params.

    `Call.query` has the signing parameters removed; parsing the whole query again with
    Starlette (parse_qsl, names and values) was a visible part of small requests' CPU.
    """
    raw = call.request.scope.get("query_string", b"").decode("latin-1")
    if SIGNATURE not in raw and "%" not in raw:
        return False
    for item in raw.split("&"):  # parse_qsl: '+' is a space, then percent-decoding
        name = item.partition("=")[0]
        if name == SIGNATURE or ("%" in name and unquote(name.replace("+", " ")) == SIGNATURE):
            return True
    return False


def before(ctx: ServerContext, call: Call) -> None:
    """Refuse what the profile refuses before the operation runs."""
    profile = ctx.profile
    presigned = _signed_in_query(call)
    if presigned and _is_list(call) and not profile.s3_presigned_list:
        raise S3Error("AccessDenied", "Presigned URLs are not supported for list operations")
    if profile.deviations.x_purpose_rejected and (
        "x-purpose" in call.query or "x-purpose" in call.request.headers
    ):
        raise S3Error("InvalidArgument", "x-purpose is not supported")
    if profile.deviations.x_id_rejected and "x-id" in call.query:
        raise S3Error("NotImplemented", "x-id is not supported")
    claimed = X_ID_OPERATIONS.get(call.query.get("x-id", ""))
    if profile.deviations.x_id_honoured and claimed is not None:
        method, on_key = claimed
        if method != call.method or on_key != (call.key is not None):
            raise S3Error("InvalidRequest", "x-id does not match the operation")


async def after(ctx: ServerContext, call: Call, response: Response) -> Response:
    """CORS response headers, and the XML Content-Type deviation of sensitivity runs."""
    response = await cors_match.decorate(ctx, call, response)
    return content_type.xml_content_type_deviation(ctx, response)
