"""PutBucketCors / GetBucketCors / DeleteBucketCors: parse, validate (dated rules) and store.

The configuration is kept as JSON in the store's bucket configurations (kind `cors`), in the
shape `services/cors_rules.py` matches when a surface answers preflights and decorates responses.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import Response

from reference_impl import offload
from reference_impl.context import ServerContext
from reference_impl.numbers import is_decimal
from reference_impl.s3.buckets import delete_bucket_setting
from reference_impl.s3.call import Call
from reference_impl.services import audit
from reference_impl.services.cors_rules import KIND
from reference_impl.services.object_reads import require_bucket
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.header_text import is_token
from reference_impl.wire.s3.xmlio import XML_CONTENT_TYPE, parse_request_body, render, xml_response

METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "HEAD"})
RULE_FIELDS = {
    "ID": "id",
    "AllowedOrigin": "origins",
    "AllowedMethod": "methods",
    "AllowedHeader": "headers",
    "ExposeHeader": "expose",
    "MaxAgeSeconds": "max_age",
}
MAX_RULES = 100
RENDER_INLINE_CHARS = 64 * 1024  # stored JSON text up to this is decoded and rendered inline
RULES_INLINE_BYTES = 64 * 1024  # request documents up to this are validated on the loop
_HOST = re.compile(
    r"^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9*]([A-Za-z0-9-]*[A-Za-z0-9])?)*\Z"
)


def valid_origin(origin: str) -> bool:
    """`*`, or scheme://host[:port] with at most one `*` and nothing after the authority."""
    if origin == "*":
        return True
    if origin.count("*") > 1 or any(c.isspace() for c in origin):
        return False
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if parts.path or parts.query or parts.fragment or "@" in parts.netloc:
        return False
    if port is not None and not 0 < port < 65536:
        return False
    return bool(_HOST.match(parts.hostname)) or parts.hostname.startswith("[")


def _text(node: ET.Element) -> str:
    return (node.text or "").strip()


async def parse_rules(ctx: ServerContext, body: bytes) -> list[dict[str, Any]]:
    """The CORSRule list of a PutBucketCors body; S3Error on anything the profile refuses."""
    profile = ctx.profile
    try:
        root = await parse_request_body(body, not profile.deviations.refuse_xml_declaration)
    except S3Error:
        if ctx.profile.deviations.malformed_xml_500:
            raise S3Error("InternalError") from None
        raise
    if len(body) <= RULES_INLINE_BYTES:
        return _rules_of(ctx, root)
    # tens of thousands of origins, each split and matched: ~1 s of Python on the loop
    return await offload.run("parse", _rules_of, ctx, root)


def _rules_of(ctx: ServerContext, root: ET.Element) -> list[dict[str, Any]]:
    """The validated rules of a parsed document; blocking for a large one (run on a worker)."""
    profile = ctx.profile
    if root.tag != "CORSConfiguration":
        raise S3Error("MalformedXML")
    rules: list[dict[str, Any]] = []
    for child in root:
        if child.tag != "CORSRule":
            if profile.cors_reject_unknown_keys:
                raise S3Error("MalformedXML", f"Unknown element {child.tag} in CORSConfiguration")
            continue
        rules.append(_parse_rule(ctx, child))
    if not rules or len(rules) > MAX_RULES:
        raise S3Error("MalformedXML", "A CORS configuration holds 1 to 100 CORSRule elements")
    return rules


def _parse_rule(ctx: ServerContext, node: ET.Element) -> dict[str, Any]:
    profile = ctx.profile
    rule: dict[str, Any] = {"id": None, "origins": [], "methods": [], "headers": [], "expose": []}
    rule["max_age"] = None
    for child in node:
        field = RULE_FIELDS.get(str(child.tag))
        if field is None:
            if profile.cors_reject_unknown_keys:
                raise S3Error("MalformedXML", f"Unknown element {child.tag} in CORSRule")
            continue
        value = _text(child)
        if field in ("id", "max_age"):
            rule[field] = value
        else:
            rule[field].append(value)
    if not rule["origins"] or not rule["methods"]:
        raise S3Error("MalformedXML", "A CORSRule needs AllowedOrigin and AllowedMethod")
    for method in rule["methods"]:
        if method not in METHODS:
            raise S3Error(
                "InvalidRequest", f"Found unsupported HTTP method in CORS config: {method}"
            )
    if ctx.profile.deviations.cors_wildcard_origin_refused and "*" in "".join(rule["origins"]):
        raise S3Error("InvalidArgument", "AllowedOrigin is not a valid origin")
    if profile.cors_valid_origins_only:
        for origin in rule["origins"]:
            if not valid_origin(origin):
                raise S3Error("InvalidArgument", f"AllowedOrigin is not a valid origin: {origin}")
    for name in rule["expose"]:  # sent as Access-Control-Expose-Headers: must be header names
        if not is_token(name):
            raise S3Error("InvalidArgument", f"ExposeHeader is not a header name: {name!r}")
    if profile.cors_reject_empty_allowed_header and "" in rule["headers"]:
        raise S3Error("InvalidArgument", "AllowedHeader must not be an empty string")
    if rule["max_age"] is not None and not is_decimal(rule["max_age"], 10):
        raise S3Error("MalformedXML", "MaxAgeSeconds must be a non-negative integer")
    return rule


def stored_rules(ctx: ServerContext, account: str, bucket: str) -> list[dict[str, Any]] | None:
    rules: list[dict[str, Any]] | None = ctx.store.get_bucket_config(account, bucket, KIND)
    return rules


async def put_bucket_cors(ctx: ServerContext, call: Call) -> Response:
    bucket = require_bucket(ctx, call)
    rules = await parse_rules(ctx, await call.small_body())
    ctx.store.put_bucket_config(call.account, bucket.name, KIND, rules)
    audit.record_s3(ctx, call, "PutBucketCors", {"rules": rules})
    return Response(status_code=200)


async def get_bucket_cors(ctx: ServerContext, call: Call) -> Response:
    """The stored rules as XML; a large configuration (up to 100 rules of thousands of
    origins, ~3.5 MB) is decoded and rendered on a worker, not on the event loop."""
    bucket = require_bucket(ctx, call)
    text = ctx.store.get_bucket_config_text(call.account, bucket.name, KIND)
    if text is None or len(text) <= RENDER_INLINE_CHARS:
        rules = None if text is None else json.loads(text)
        if not rules:
            raise S3Error("NoSuchCORSConfiguration", BucketName=bucket.name)
        return xml_response("cors.xml.j2", rules=rules)
    body = await offload.run("render", _rendered, text)
    return Response(body, media_type=XML_CONTENT_TYPE)


def _rendered(text: str) -> bytes:
    """GetBucketCors's XML of a stored configuration; blocking (the `render` worker runs
    Python, so the loop gets the GIL back every switch interval)."""
    return render("cors.xml.j2", rules=json.loads(text)).encode("utf-8")


async def delete_bucket_cors(ctx: ServerContext, call: Call) -> Response:
    return delete_bucket_setting(ctx, call, KIND, "DeleteBucketCors")


Operation = Callable[[ServerContext, Call], Awaitable[Response]]
OPERATIONS: dict[tuple[str, str | None], Operation] = {
    ("PUT", "cors"): put_bucket_cors,
    ("GET", "cors"): get_bucket_cors,
    ("DELETE", "cors"): delete_bucket_cors,
}
