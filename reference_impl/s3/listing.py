"""ListObjectsV2 and ListObjects (V1): prefix, delimiter, pagination, encoding-type."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from urllib.parse import quote

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3.buckets import require_bucket
from reference_impl.s3.call import Call
from reference_impl.s3.errors import S3Error
from reference_impl.s3.xmlio import iso8601, xml_response

COMMON = {"prefix", "delimiter", "max-keys", "encoding-type", "x-id", "x-purpose", "per_page"}
V2_PARAMS = COMMON | {"list-type", "start-after", "continuation-token", "fetch-owner"}
V1_PARAMS = COMMON | {"marker"}
TOKEN_MAGIC = "v1:"


@dataclass
class Page:
    contents: list[dict[str, object]] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    truncated: bool = False
    last: str | None = None  # last key or common prefix returned


def collect(
    ctx: ServerContext,
    call: Call,
    prefix: str,
    delimiter: str | None,
    after: str | None,
    max_keys: int,
    owner: bool,
) -> Page:
    """Walk keys in order, folding common prefixes, until the page is full (one look-ahead)."""
    assert call.bucket is not None
    page = Page()
    start_at: str | None = None
    while True:
        restarted = False
        for record in ctx.store.iter_keys(call.account, call.bucket, prefix, after, start_at):
            entry_prefix = None
            if delimiter:
                cut = record.key.find(delimiter, len(prefix))
                if cut >= 0:
                    entry_prefix = record.key[: cut + len(delimiter)]
            if len(page.contents) + len(page.prefixes) >= max_keys:
                page.truncated = True
                return page
            if entry_prefix is None:
                page.contents.append(
                    {
                        "key": record.key,
                        "modified": iso8601(record.modified),
                        "etag": record.etag,
                        "size": record.size,
                        "owner": call.account if owner else None,
                    }
                )
                page.last = record.key
                continue
            if entry_prefix == after and not ctx.profile.deviate_list_repeat_common_prefix:
                # token points inside this prefix: it was already returned
                pass
            else:
                page.prefixes.append(entry_prefix)
                page.last = entry_prefix
            # skip the rest of the prefix: restart at its successor
            start_at = entry_prefix[:-1] + chr(ord(entry_prefix[-1]) + 1)
            after = None
            restarted = True
            break
        if not restarted:
            return page


def _max_keys(call: Call, ctx: ServerContext) -> int:
    raw = call.query.get("max-keys", call.query.get("per_page"))
    limit = int(ctx.profile.list_max_keys)
    if raw is None:
        return limit
    if not raw.isdigit():
        raise S3Error("InvalidArgument", "max-keys must be a non-negative integer")
    return min(int(raw), limit)


def _unsupported(call: Call, allowed: set[str]) -> None:
    extra = sorted(set(call.query) - allowed)
    if extra:
        raise S3Error("NotImplemented", f"Unsupported list parameter: {extra[0]}")


class _Encoder:
    """encoding-type=url: names are URL-encoded in the response (botocore decodes them)."""

    def __init__(self, call: Call) -> None:
        self.encoding = call.query.get("encoding-type")
        if self.encoding not in (None, "url"):
            raise S3Error("InvalidArgument", "Invalid Encoding Method specified in Request")

    def __call__(self, text: str) -> str:
        return quote(text, safe="/") if self.encoding else text

    def opt(self, text: str | None) -> str | None:
        return None if text is None else self(text)


def encode_token(position: str) -> str:
    return base64.urlsafe_b64encode((TOKEN_MAGIC + position).encode()).decode()


def decode_token(token: str) -> str:
    try:
        text = base64.urlsafe_b64decode(token.encode("ascii")).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        text = ""
    if not text.startswith(TOKEN_MAGIC):
        raise S3Error("InvalidArgument", "The continuation token provided is incorrect")
    return text[len(TOKEN_MAGIC) :]


async def list_objects_v2(ctx: ServerContext, call: Call) -> Response:
    if not ctx.profile.deviate_list_ignore_unsupported:
        _unsupported(call, V2_PARAMS)
    bucket = require_bucket(ctx, call)
    enc = _Encoder(call)
    prefix = call.query.get("prefix", "")
    delimiter = call.query.get("delimiter") or None
    token = call.query.get("continuation-token")
    start_after = call.query.get("start-after")
    if token is not None and ctx.profile.deviate_invalid_cursor_internal_error:
        try:
            decode_token(token)
        except S3Error:
            raise S3Error("InternalError") from None
    after = decode_token(token) if token is not None else start_after
    max_keys = _max_keys(call, ctx)
    owner = call.query.get("fetch-owner") == "true"
    page = collect(ctx, call, prefix, delimiter, after, max_keys, owner)
    truncated = page.truncated or (
        ctx.profile.deviate_cursor_when_full
        and max_keys > 0
        and len(page.contents) + len(page.prefixes) == max_keys
    )
    key_count = len(page.contents)
    if not ctx.profile.deviate_key_count_keys_only:
        key_count += len(page.prefixes)
    for item in page.contents:
        item["key"] = enc(str(item["key"]))
    return xml_response(
        "list_objects_v2.xml.j2",
        bucket=bucket.name,
        prefix=enc(prefix),
        delimiter=enc.opt(delimiter),
        max_keys=max_keys,
        key_count=key_count,
        truncated=truncated,
        encoding_type=enc.encoding,
        start_after=enc.opt(start_after),
        continuation_token=None if ctx.profile.deviate_list_no_token_echo else token,
        next_token=encode_token(page.last) if truncated and page.last else None,
        contents=page.contents,
        prefixes=[enc(p) for p in page.prefixes],
    )


async def list_objects_v1(ctx: ServerContext, call: Call) -> Response:
    if not ctx.profile.deviate_list_ignore_unsupported:
        _unsupported(call, V1_PARAMS)
    bucket = require_bucket(ctx, call)
    enc = _Encoder(call)
    prefix = call.query.get("prefix", "")
    delimiter = call.query.get("delimiter") or None
    marker = call.query.get("marker", "")
    max_keys = _max_keys(call, ctx)
    page = collect(ctx, call, prefix, delimiter, marker or None, max_keys, True)
    for item in page.contents:
        item["key"] = enc(str(item["key"]))
    marked = page.truncated or ctx.profile.deviate_v1_next_marker_always
    next_marker = page.last if marked and delimiter else None
    return xml_response(
        "list_objects_v1.xml.j2",
        bucket=bucket.name,
        prefix=enc(prefix),
        delimiter=enc.opt(delimiter),
        max_keys=max_keys,
        truncated=page.truncated,
        encoding_type=enc.encoding,
        marker=enc(marker),
        next_marker=enc.opt(next_marker),
        contents=page.contents,
        prefixes=[enc(p) for p in page.prefixes],
    )
