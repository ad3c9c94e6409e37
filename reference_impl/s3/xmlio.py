"""XML in and out: responses rendered from templates (data files), requests parsed safely."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import cache
from typing import Any

import defusedxml.ElementTree as SafeET
from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.responses import Response

from reference_impl.s3.errors import S3Error

S3_XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"
XML_CONTENT_TYPE = "application/xml"


@cache
def _env() -> Environment:
    return Environment(
        loader=PackageLoader("reference_impl.s3", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=False,
    )


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
    """Parse a request body, namespaces stripped; anything odd is MalformedXML."""
    if not allow_declaration and body.lstrip().startswith(b"<?xml"):
        raise S3Error("MalformedXML")
    try:
        root = SafeET.fromstring(body)
    except Exception as exc:  # ParseError, DTD/entity refusals: all the client's fault
        raise S3Error("MalformedXML") from exc
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = element.tag.split("}", 1)[1]
    return root


def iso8601(timestamp: float) -> str:
    import datetime as dt

    moment = dt.datetime.fromtimestamp(timestamp, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
