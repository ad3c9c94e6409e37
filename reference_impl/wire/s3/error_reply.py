"""An S3 error as its XML answer: the S3 surface's and the public surface's error body."""

from __future__ import annotations

from typing import Protocol

from starlette.responses import Response

from reference_impl.profile import Profile
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xml_text import xml_safe
from reference_impl.wire.s3.xmlio import S3_XMLNS, XML_CONTENT_TYPE, render


class HasProfile(Protocol):
    """What the answer reads of the server context: the profile (its error_xmlns deviation)."""

    @property
    def profile(self) -> Profile: ...


def error_response(ctx: HasProfile, error: S3Error, resource: str = "") -> Response:
    details = {name: xml_safe(str(value)) for name, value in error.details.items()}
    if resource:
        details.setdefault("Resource", xml_safe(resource))
    body = render(
        "error.xml.j2",
        code=error.code,
        message=xml_safe(error.message),
        details=details,
        xmlns=S3_XMLNS if ctx.profile.deviations.error_xmlns else "",
    )
    return Response(
        body, status_code=error.status, headers=error.headers, media_type=XML_CONTENT_TYPE
    )
