"""CompleteMultipartUpload bodies that are not a part list: refused with a 4xx, never a 5xx.

An implementer may read PartNumber with int() once the body parsed, so that a part whose
number is not a number (beside an ETag) fails the server instead of the request, or refuse a
malformed body only when both of a part's fields are bad.
"""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp


def _post(s3, bucket, key, upload, body: bytes):
    query = [("uploadId", upload)]
    headers = {"Content-Type": "application/xml"}
    return s3.wire.request("POST", bucket, key, query=query, body=body, headers=headers)


def _started(s3, bucket, names):
    """An upload of one part: (key, upload id, the part's ETag)."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    etag = mp.etag(mp.upload_part(s3.wire, bucket, key, upload, 1, b"one part"))
    return key, upload, etag


@pytest.mark.rule("storage.xml.malformed-400")
def test_malformed_completion_body_is_400(s3, bucket, names):
    """A completion body that is not well-formed XML is refused with 400 MalformedXML."""
    key, upload, etag = _started(s3, bucket, names)
    body = f"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>{etag}</ETag>"
    _post(s3, bucket, key, upload, body.encode()).assert_error(400, "MalformedXML")


# well-formed, but not a part list S3's schema takes: which 4xx is not stated (S3 says
# MalformedXML, "did not validate against our published schema"), so a 4xx with a code
BODIES = {
    "part-number-not-a-number": "<Part><PartNumber>one</PartNumber><ETag>{etag}</ETag></Part>",
    "part-without-number": "<Part><ETag>{etag}</ETag></Part>",
    "no-part": "",
}


@pytest.mark.rule("storage.xml.malformed-400")
@pytest.mark.parametrize("case", list(BODIES))
def test_completion_body_outside_the_schema_is_4xx(s3, bucket, names, case):
    """A completion body whose part list is not one (a PartNumber that is not a number beside
    its ETag, a part without a number, no part at all) is refused with a 4xx and an error
    code, not a 5xx."""
    key, upload, etag = _started(s3, bucket, names)
    body = f"<CompleteMultipartUpload>{BODIES[case].format(etag=etag)}</CompleteMultipartUpload>"
    reply = _post(s3, bucket, key, upload, body.encode())
    assert 400 <= reply.status < 500, f"{case}: {reply.describe()}"
    assert reply.error_code and reply.error_code != "InternalError", reply.describe()
