"""An HTTP/2 client (httpx + h2) against the reference's public TLS listener.

The certificate is handed over explicitly (the machines set CA-bundle variables), and the
negotiated protocol is read from the connection, not assumed.
"""

from __future__ import annotations

import ssl
from typing import Any

import httpx
import pytest

from conformance.clients.public import CustomDomains, domain_for
from tests.reference.conftest import Reference, boto_client, start_reference


def _linked(ref: Reference, bucket: str) -> str:
    s3 = boto_client(ref.s3)
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="a.txt", Body=b"over h2")
    domain = domain_for(bucket)
    CustomDomains(ref.ready["surfaces"]["mgmt"]).create(bucket, domain).assert_envelope_ok()
    return domain


def _get(surface: dict[str, Any], domain: str, http2: bool = True) -> httpx.Response:
    context = ssl.create_default_context(cafile=surface["verify"])
    with httpx.Client(http2=http2, verify=context, trust_env=False, timeout=10) as client:
        return client.get(surface["url"] + "/a.txt", headers={"Host": domain})


def test_public_tls_negotiates_h2(reference: Reference) -> None:
    surface = reference.ready["surfaces"]["public_tls"]
    domain = _linked(reference, "ec-h2-default")
    reply = _get(surface, domain)
    assert reply.status_code == 200 and reply.content == b"over h2"
    assert reply.http_version == "HTTP/2"
    assert _get(surface, domain, http2=False).http_version == "HTTP/1.1"  # h1 still offered


def test_untrusted_certificate_is_refused(reference: Reference) -> None:
    url = reference.ready["surfaces"]["public_tls"]["url"]
    context = ssl.create_default_context()  # the system store: it does not hold our certificate
    with (
        httpx.Client(http2=True, verify=context, trust_env=False) as client,
        pytest.raises(httpx.ConnectError),
    ):
        client.get(url + "/a.txt")


def test_before_2023_03_16_only_http1(tmp_path: Any) -> None:
    ref = start_reference(tmp_path / "data", "--behaviour-date", "2023-03-15")
    try:
        domain = _linked(ref, "ec-h2-early")
        reply = _get(ref.ready["surfaces"]["public_tls"], domain)
        assert reply.status_code == 200 and reply.http_version == "HTTP/1.1"
    finally:
        ref.stop()
