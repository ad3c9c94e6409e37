"""ListObjectsV2 and ListObjects (V1): prefix, delimiter, pagination, encoding-type."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from markupsafe import Markup
from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.numbers import is_decimal
from reference_impl.s3.call import Call
from reference_impl.services import deviant
from reference_impl.services.object_reads import require_bucket
from reference_impl.storage.key_order import successor
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xml_text import fits_xml, xml_escape
from reference_impl.wire.s3.xmlio import fragment, iso8601, xml_response

COMMON = {"prefix", "delimiter", "max-keys", "encoding-type", "x-id", "x-purpose", "per_page"}
V2_PARAMS = COMMON | {"list-type", "start-after", "continuation-token", "fetch-owner"}
V1_PARAMS = COMMON | {"marker"}
TOKEN_MAGIC = "v1:"
BATCH_MAX = 500  # rows per storage query, at most
_URL_SAFE = re.compile(r"[A-Za-z0-9_.~/-]*")  # what quote(text, safe="/") leaves as it is


@dataclass
class Page:
    # key, modified, etag and size of each object listed
    contents: list[tuple[str, float, str, int]] = field(default_factory=list)
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
) -> Page:
    """Walk keys in order, folding common prefixes, until the page is full (one look-ahead)."""
    assert call.bucket is not None
    page = Page()
    if max_keys == 0 and not ctx.profile.deviations.max_keys_zero_truncated:
        return page  # nothing asked for, nothing left out: S3 answers IsTruncated false
    start_at: str | None = None
    shown = 0  # len(page.contents) + len(page.prefixes)
    while True:
        restarted = False
        # only as many rows as the page can still take, plus the look-ahead: every row
        # fetched is decoded; the metadata JSON, which a listing never shows, is not
        batch = min(max_keys - shown + 1, BATCH_MAX)
        records = ctx.store.iter_keys(
            call.account, call.bucket, prefix, after, start_at, batch, with_meta=False
        )
        for record in records:
            entry_prefix = None
            if delimiter:
                cut = record.key.find(delimiter, len(prefix))
                if cut >= 0:
                    entry_prefix = record.key[: cut + len(delimiter)]
            if shown >= max_keys:
                page.truncated = True
                return page
            if entry_prefix is None:
                page.contents.append((record.key, record.modified, record.etag, record.size))
                page.last = record.key
                shown += 1
                continue
            if entry_prefix == after and not ctx.profile.deviations.list_repeat_common_prefix:
                # token points inside this prefix: it was already returned
                pass
            else:
                page.prefixes.append(entry_prefix)
                page.last = entry_prefix
                shown += 1
            # skip the rest of the prefix: restart at its successor
            start_at = successor(entry_prefix)
            if start_at is None:
                return page  # no key sorts after this prefix's keys: the list is complete
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
    if not is_decimal(raw):
        raise S3Error("InvalidArgument", "max-keys must be a non-negative integer")
    return min(int(raw), limit)


def _unsupported(call: Call, allowed: set[str]) -> None:
    extra = sorted(set(call.query) - allowed)
    if extra:
        raise S3Error("NotImplemented", f"Unsupported list parameter: {extra[0]}")


ECHOED = ("prefix", "delimiter", "marker", "start-after", "key-marker")


class _Encoder:
    """encoding-type=url: names are URL-encoded in the response (botocore decodes them)."""

    def __init__(self, call: Call) -> None:
        self.encoding = call.query.get("encoding-type")
        if self.encoding not in (None, "url"):
            raise S3Error("InvalidArgument", "Invalid Encoding Method specified in Request")
        if self.encoding is None:  # echoed raw: the page must stay XML (no key holds these)
            for name in ECHOED:
                if not fits_xml(call.query.get(name) or ""):
                    raise S3Error("InvalidArgument", f"{name} holds a control character: "
                                  "send encoding-type=url", ArgumentName=name)  # fmt: skip
        # a name encoded, then escaped for XML text (URL-encoding leaves nothing to escape)
        self.xml: Callable[[str], str] = _url_encode if self.encoding else xml_escape

    def __call__(self, text: str) -> str:
        return _url_encode(text) if self.encoding else text

    def opt(self, text: str | None) -> str | None:
        return None if text is None else self(text)


def _url_encode(text: str) -> str:
    return text if _URL_SAFE.fullmatch(text) else quote(text, safe="/")


def entries(page: Page, enc: _Encoder, owner: str | None) -> Markup:
    """The page's <Contents> and <CommonPrefixes>, escaped as the envelope template would.

    `owner`: the <Owner> of every object, None for none.
    """
    contents = fragment("list_objects_contents.xml").format
    name_xml = enc.xml
    owner_xml = ""
    if owner is not None:
        owner_xml = fragment("list_objects_owner.xml").format(owner=xml_escape(owner))
    parts = [
        contents(
            key=name_xml(key),
            modified=iso8601(modified),
            etag=xml_escape(etag),
            size=size,
            owner=owner_xml,
        )
        for key, modified, etag, size in page.contents
    ]
    prefix_xml = fragment("list_objects_prefix.xml").format
    parts.extend(prefix_xml(prefix=name_xml(p)) for p in page.prefixes)
    return Markup("".join(parts))


def encode_token(position: str, magic: str = TOKEN_MAGIC) -> str:
    """An opaque continuation token for `position`; `magic` tells one listing's tokens apart."""
    return base64.urlsafe_b64encode((magic + position).encode()).decode()


def bucket_token_magic(bucket: str) -> str:
    """One bucket's ListObjectsV2 tokens: a token issued for another bucket is refused, not
    read as a position there (bucket names hold no ':')."""
    return f"{TOKEN_MAGIC}{bucket}:"


def decode_token(token: str, magic: str = TOKEN_MAGIC) -> str:
    """The position in a token `encode_token` made with the same `magic`, else InvalidArgument.

    Strict: only the exact text `encode_token` makes is a token. base64's lenient decoding drops
    bytes outside its alphabet and extra padding, so an altered token (a control character, a
    space) would pass, and ListObjectsV2 would echo it into XML that cannot carry it."""
    try:
        raw = base64.b64decode(token.encode("ascii"), altchars=b"-_", validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        text = ""
    if not text.startswith(magic) or encode_token(text[len(magic) :], magic) != token:
        raise S3Error("InvalidArgument", "The continuation token provided is incorrect")
    return text[len(magic) :]


def _deviated(call: Call, ctx: ServerContext) -> Call:
    """The call without the query parameters deviation `list_ignore_params` names (break-checks)."""
    ignored = ctx.profile.deviations.list_ignore_params
    if not ignored:
        return call
    return replace(call, query={k: v for k, v in call.query.items() if k not in ignored})


def _listing(ctx: ServerContext, template: str, **values: Any) -> Response:
    response = xml_response(template, **values)
    for name in ctx.profile.deviations.list_unrendered or ():  # break-checks: elements left out
        body = re.sub(rf"<{name}>[^<]*</{name}>", "", bytes(response.body).decode(), count=1)
        response = Response(body, media_type=response.media_type)
    return response


async def list_objects_v2(ctx: ServerContext, call: Call) -> Response:
    if not ctx.profile.deviations.list_ignore_unsupported:
        _unsupported(call, V2_PARAMS)
    call = _deviated(call, ctx)
    bucket = require_bucket(ctx, call)
    enc = _Encoder(call)
    prefix = call.query.get("prefix", "")
    delimiter = call.query.get("delimiter") or None
    token = call.query.get("continuation-token")
    start_after = call.query.get("start-after")
    magic = bucket_token_magic(bucket.name)
    if token and ctx.profile.deviations.invalid_cursor_internal_error:
        try:
            decode_token(token, magic)
        except S3Error:
            raise S3Error("InternalError") from None
    cursor = token
    if token == "":
        cursor = None  # an empty token is no token (docs/decisions.md); it is still echoed
    after = decode_token(cursor, magic) if cursor is not None else start_after
    max_keys = _max_keys(call, ctx)
    owner = call.query.get("fetch-owner") == "true"
    page = deviant.listing_order(ctx, collect(ctx, call, prefix, delimiter, after, max_keys))
    truncated = page.truncated or (
        ctx.profile.deviations.cursor_when_full
        and max_keys > 0
        and len(page.contents) + len(page.prefixes) == max_keys
    )
    key_count = len(page.contents)
    if not ctx.profile.deviations.key_count_keys_only:
        key_count += len(page.prefixes)
    return _listing(
        ctx,
        "list_objects_v2.xml.j2",
        bucket=bucket.name,
        prefix=enc(prefix),
        delimiter=enc.opt(delimiter),
        max_keys=max_keys,
        key_count=key_count,
        truncated=truncated,
        encoding_type=enc.encoding,
        start_after=enc.opt(start_after),
        continuation_token=None if ctx.profile.deviations.list_no_token_echo else token,
        next_token=encode_token(page.last, magic) if truncated and page.last else None,
        entries=entries(page, enc, call.account if owner and call.account else None),
    )


async def list_objects_v1(ctx: ServerContext, call: Call) -> Response:
    if not ctx.profile.deviations.list_ignore_unsupported:
        _unsupported(call, V1_PARAMS)
    call = _deviated(call, ctx)
    bucket = require_bucket(ctx, call)
    enc = _Encoder(call)
    prefix = call.query.get("prefix", "")
    delimiter = call.query.get("delimiter") or None
    marker = call.query.get("marker", "")
    max_keys = _max_keys(call, ctx)
    page = deviant.listing_order(
        ctx, collect(ctx, call, prefix, delimiter, marker or None, max_keys)
    )
    marked = page.truncated or ctx.profile.deviations.v1_next_marker_always
    next_marker = page.last if marked and delimiter else None
    return _listing(
        ctx,
        "list_objects_v1.xml.j2",
        bucket=bucket.name,
        prefix=enc(prefix),
        delimiter=enc.opt(delimiter),
        max_keys=max_keys,
        truncated=page.truncated,
        encoding_type=enc.encoding,
        marker=enc(marker),
        next_marker=enc.opt(next_marker),
        entries=entries(page, enc, call.account),
    )
