"""ListBuckets with the provider's paging: max-keys, start-after, continuation-token, prefix.

Each is read from the query or from the `ext-` header of the same name (`cf-max-keys`, ...),
the header winning; `per_page` is an alias of max-keys and 0 is a valid page size (empty page).
A truncated page says so in `ext-is-truncated` / `ext-next-continuation-token` headers and in
the XML (`IsTruncated`, `ContinuationToken`).
"""

from __future__ import annotations

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.numbers import is_decimal
from reference_impl.s3.call import Call
from reference_impl.s3.listing import decode_token, encode_token
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import iso8601, xml_response

EXT_PREFIX = "cf-"
TOKEN_MAGIC = "b1:"  # not the object listing's: one listing's token is refused by the other
MAX_PAGE = 1000


def _param(call: Call, name: str, use_headers: bool) -> str | None:
    """The `ext-` header of that name, else the query parameter: "Values in headers take
    precedence over the search parameters" (the provider's S3 extensions page, ListBuckets)."""
    value = call.header(EXT_PREFIX + name) if use_headers else None
    if value is None:
        value = call.query.get(name)
    return value


def _page_size(raw: str | None, zero_refused: bool) -> int:
    if raw is None:
        return MAX_PAGE
    if not is_decimal(raw.strip()):
        raise S3Error("InvalidArgument", "max-keys must be a non-negative integer")
    if zero_refused and int(raw) == 0:  # a deviation: 1..1000 instead of 0..1000
        raise S3Error("InvalidArgument", "max-keys must be between 1 and 1000")
    return min(int(raw), MAX_PAGE)


async def list_buckets(ctx: ServerContext, call: Call) -> Response:
    paged = bool(ctx.profile.list_buckets_ext_params)
    names = ctx.store.list_buckets(call.account)
    if ctx.profile.deviations.list_buckets_hides_newest and names:
        names = [b for b in names if b.created < max(n.created for n in names)]
    if not paged:
        rows = [{"name": b.name, "created": iso8601(b.created)} for b in names]
        return xml_response("list_buckets.xml.j2", buckets=rows, owner=call.account)
    prefix = _param(call, "prefix", True) or ""
    token = _param(call, "continuation-token", True)
    after = decode_token(token, TOKEN_MAGIC) if token else _param(call, "start-after", True)
    size_raw = _param(call, "max-keys", True)
    if size_raw is None:
        size_raw = call.query.get("per_page")
    size = _page_size(size_raw, ctx.profile.deviations.page_size_zero_refused)
    chosen = [b for b in names if b.name.startswith(prefix) and (after is None or b.name > after)]
    page, truncated = chosen[:size], len(chosen) > size and size > 0
    next_token = None
    if truncated:
        resume = page[-1].name
        if ctx.profile.deviations.list_buckets_token_names_next:  # the next page's first
            resume = chosen[size].name
        next_token = encode_token(resume, TOKEN_MAGIC)
    headers = {}
    if truncated and next_token:
        headers[EXT_PREFIX + "is-truncated"] = "true"
        headers[EXT_PREFIX + "next-continuation-token"] = next_token
    rows = [{"name": b.name, "created": iso8601(b.created)} for b in page]
    return xml_response(
        "list_buckets_page.xml.j2",
        headers=headers,
        buckets=rows,
        owner=call.account,
        prefix=prefix or None,
        truncated=truncated,
        next_token=next_token,
    )
