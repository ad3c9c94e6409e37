"""Deviation branches of the hot S3 modules, kept out of them.

conditions.py, listing.py and multipart_complete.py are in the CI mutation sample
(bench/mutation/sample.yaml), which draws a fixed number of mutants by seed: a deviation branch
there adds mutants only a break-check reaches and reshuffles which ones are drawn. Those
modules call into here instead, without a branch of their own. Docs: deviations.yaml.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import replace
from typing import TYPE_CHECKING

from reference_impl.context import ServerContext
from reference_impl.services import conditions
from reference_impl.storage.engine import ObjectRecord
from reference_impl.storage.multipart import Part

if TYPE_CHECKING:
    from reference_impl.s3.listing import Page


def check_read(
    ctx: ServerContext, wanted: conditions.Conditions, record: ObjectRecord, lists: bool
) -> int | None:
    """conditions.check_read, or under `if_modified_since_inverted` with If-Modified-Since
    compared the wrong way round (304 when the object changed after the date), or under
    `http_date_imf_only` with dates not in IMF-fixdate form ignored."""
    if ctx.profile.deviations.http_date_imf_only:
        wanted = replace(
            wanted,
            if_modified_since=_imf_only(wanted.if_modified_since),
            if_unmodified_since=_imf_only(wanted.if_unmodified_since),
        )
    since = wanted.if_modified_since
    if not ctx.profile.deviations.if_modified_since_inverted or since is None:
        return conditions.check_read(wanted, record, lists)
    status = conditions.check_read(replace(wanted, if_modified_since=None), record, lists)
    stamp = conditions._date(since)
    unconditioned = status is None and wanted.if_none_match is None
    if unconditioned and stamp is not None and conditions._modified_after(record, stamp):
        return conditions.NOT_MODIFIED
    return status


IMF_FIXDATE = re.compile(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT")


def _imf_only(value: str | None) -> str | None:
    return value if value is not None and IMF_FIXDATE.fullmatch(value) else None


def listing_order(ctx: ServerContext, page: Page) -> Page:
    """The page as listed, or under `list_collated_order` in a locale collation's order:
    names compared first by their letters and digits alone, accents and case folded, as ORDER
    BY under an en_US.UTF-8 collation or `sorted(key=locale.strxfrm)` would. The page holds the
    same entries; paging is unchanged."""
    if not ctx.profile.deviations.list_collated_order:
        return page

    def fold(name: str) -> tuple[str, str]:
        decomposed = unicodedata.normalize("NFKD", name)
        return "".join(c for c in decomposed if c.isalnum()).casefold(), name

    contents = sorted(page.contents, key=lambda row: fold(row[0]))
    return replace(page, contents=contents, prefixes=sorted(page.prefixes, key=fold))


def sizes_checked_at_completion(ctx: ServerContext) -> bool:
    """The profile's choice, unless `unequal_parts_accepted` skips the size checks."""
    checked = bool(ctx.profile.multipart_sizes_checked_at_completion)
    return checked and not ctx.profile.deviations.unequal_parts_accepted


def joined_parts(
    ctx: ServerContext, chosen: list[Part], listed: list[tuple[int, str]]
) -> list[Part]:
    """The parts in ascending order, or under `parts_joined_as_listed` as the body lists them."""
    if not ctx.profile.deviations.parts_joined_as_listed:
        return chosen
    by_number = {part.number: part for part in chosen}
    return [by_number[number] for number, _ in listed]


def multipart_etag(ctx: ServerContext, chosen: list[Part], etag: str) -> str:
    """`etag`, or under `multipart_etag_of_hex` the MD5 of the hex part ETags as text, -N."""
    if not ctx.profile.deviations.multipart_etag_of_hex:
        return etag
    hexes = "".join(part.etag for part in chosen).encode()
    return f"{hashlib.md5(hexes).hexdigest()}-{len(chosen)}"
