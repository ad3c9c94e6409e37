"""XML in and out: responses rendered from templates (data files), requests parsed safely."""

from __future__ import annotations

import asyncio
import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import cache, lru_cache
from importlib import resources
from typing import Any

import defusedxml.ElementTree as SafeET
from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.responses import Response

from reference_impl.wire.s3.errors import S3Error

S3_XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"
# Every S3 request document fits (10,000 parts x ~10 tags, 1,000 lifecycle rules, a few MB of
# CORS origins); more markup than this is refused before the parser runs (docs/architecture.md).
MAX_XML_MARKUP = 200_000
FEED_SLICE = 16 * 1024  # bytes parsed between two yields of the event loop
XML_CONTENT_TYPE = "application/xml"


@cache
def _env() -> Environment:
    return Environment(
        loader=PackageLoader("reference_impl.wire.s3", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        auto_reload=False,  # templates ship with the package: no stat() of the file per render
        keep_trailing_newline=False,
    )


@cache
def fragment(name: str) -> str:
    """A `str.format` fragment from the templates folder, for entries repeated per page.

    Rendering a page's hundreds of entries through Jinja (attribute lookups, escaping per
    field) cost more than the rest of a listing; callers escape values with
    `xml_text.xml_escape`, exactly as Jinja's autoescape would, so the bytes are the same.
    """
    text = resources.files("reference_impl.wire.s3").joinpath("templates", name).read_text("utf-8")
    return text.removesuffix("\n")


def render(template: str, **values: Any) -> str:
    values.setdefault("xmlns", S3_XMLNS)
    return _env().get_template(template).render(**values).strip()


def xml_response(
    template: str, status: int = 200, headers: dict[str, str] | None = None, **values: Any
) -> Response:
    return Response(
        render(template, **values),
        status_code=status,
        headers=headers,
        media_type=XML_CONTENT_TYPE,
    )


def parse_body(body: bytes, allow_declaration: bool = True) -> ET.Element:
    """Parse a small request body in one go, namespaces stripped; anything odd is MalformedXML.
    Request handlers use `parse_request_body`, which yields the loop while it parses."""
    parser = _parser(body, allow_declaration)
    try:
        parser.feed(body)
        root: ET.Element = parser.close()
    except Exception as exc:  # ParseError, DTD/entity refusals: all the client's fault
        raise S3Error("MalformedXML") from exc
    _strip_namespaces(root.iter())
    return root


async def parse_request_body(body: bytes, allow_declaration: bool = True) -> ET.Element:
    """`parse_body` in slices of `FEED_SLICE` bytes, yielding the event loop between them.

    expat holds the GIL for a whole `feed()`: a 4 MiB document of a million empty elements
    held every surface for ~5 s when parsed in one call (issue 26, adversarial pass).
    """
    parser = _parser(body, allow_declaration)
    try:
        for start in range(0, len(body), FEED_SLICE):
            parser.feed(body[start : start + FEED_SLICE])
            await asyncio.sleep(0)
        root: ET.Element = parser.close()
    except Exception as exc:  # ParseError, DTD/entity refusals: all the client's fault
        raise S3Error("MalformedXML") from exc
    elements = root.iter()
    while _strip_namespaces(elements, FEED_SLICE):
        await asyncio.sleep(0)
    return root


def _parser(body: bytes, allow_declaration: bool) -> SafeET.DefusedXMLParser:
    if not allow_declaration and body.lstrip().startswith(b"<?xml"):
        raise S3Error("MalformedXML")
    if body.count(b"<") > MAX_XML_MARKUP:
        raise S3Error("MalformedXML", "The XML document holds too many elements")
    return SafeET.DefusedXMLParser(target=ET.TreeBuilder())


def _strip_namespaces(elements: Iterator[ET.Element], limit: int | None = None) -> bool:
    """Drop `{ns}` from the tags of up to `limit` elements; True when some may be left."""
    for count, element in enumerate(elements, 1):
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = element.tag.split("}", 1)[1]
        if limit is not None and count >= limit:
            return True
    return False


@lru_cache(maxsize=4096)  # listings repeat the same timestamps page after page
def iso8601(timestamp: float) -> str:
    """`2024-05-01T12:00:00.123Z` (UTC, milliseconds), as S3 lists LastModified."""
    moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC)
    millis = moment.microsecond // 1000
    if moment.year < 1000:  # strftime's %Y does not pad these: keep its output
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis:03d}Z"
    # %-formatting the fields is about half the cost of strftime, with the same text
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (  # noqa: UP031 - the fastest form
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
        millis,
    )
