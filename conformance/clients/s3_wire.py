"""Raw S3 requests: signed with botocore's SigV4 signer, sent with `requests`, seen as sent.

Wire-level rules (exact headers, XML bodies, unusual signing) need what the target really
answered, so nothing here parses leniently or hides an error; only a transient network failure
of an idempotent request with a replayable body is retried (conformance/clients/retry.py), and
each retry is recorded as evidence.
"""

from __future__ import annotations

import base64
import hashlib
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote

import defusedxml.ElementTree as SafeET
import requests
from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from conformance.clients import retry
from conformance.clients.evidence import Exchange, collector


class Readable(Protocol):
    """A streamed body (a file, or a generator object with read/seek for signing)."""

    def read(self, amount: int = -1, /) -> bytes: ...


Body = bytes | Readable
Query = Iterable[tuple[str, str | None]]
DEFAULT_TIMEOUT = (5.0, 60.0)


def _local(tag: str) -> str:
    return tag.split("}", 1)[1] if tag.startswith("{") else tag


@dataclass
class WireReply:
    """One raw response; assertion helpers say what was expected and what came back."""

    method: str
    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def xml(self) -> ET.Element | None:
        """The body as XML with namespaces stripped from tags; None when it is not XML."""
        if not self.body.strip().startswith(b"<"):
            return None
        try:
            root: ET.Element = SafeET.fromstring(self.body)
        except (ET.ParseError, ValueError):
            return None
        for element in root.iter():
            element.tag = _local(element.tag)
        return root

    @property
    def error_code(self) -> str | None:
        root = self.xml
        if root is None or root.tag != "Error":
            return None
        return root.findtext("Code")

    @property
    def error_message(self) -> str | None:
        root = self.xml
        return None if root is None else root.findtext("Message")

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def _describe(self) -> str:
        code = self.error_code
        if code:
            detail = f" {code}: {self.error_message}"
        elif self.status >= 300:
            # no <Code> to show: the body says what came back instead
            text = self.body[:200].decode("utf-8", errors="replace").strip()
            detail = f" with no error code ({text or 'empty body'})"
        else:
            detail = ""
        return f"{self.method} {self.url} answered {self.status}{detail}"

    def describe(self) -> str:
        """The request and its answer in one line, for failure and setup messages."""
        return self._describe()

    def assert_ok(self) -> WireReply:
        assert 200 <= self.status < 300, f"expected success; {self._describe()}"
        return self

    def assert_error(self, status: int, code: str | None) -> WireReply:
        assert self.status == status and (code is None or self.error_code == code), (
            f"expected {status} {code}; {self._describe()}"
        )
        return self


@dataclass
class PreparedWire:
    """A signed request that a test may still change (to prove the signature covers it)."""

    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: Body = b""


class _PayloadAuth(S3SigV4Auth):
    """S3SigV4Auth with an explicit payload hash (UNSIGNED-PAYLOAD, or one computed upfront)."""

    def __init__(self, credentials: Credentials, region: str, payload_hash: str | None) -> None:
        super().__init__(credentials, "s3", region)
        self._payload_hash = payload_hash

    def payload(self, request: Any) -> str:
        if self._payload_hash is not None:
            return self._payload_hash
        return str(super().payload(request))


def encode_query(query: Query) -> str:
    parts = []
    for name, value in query:
        item = quote(name, safe="-_.~")
        if value is not None:
            item += "=" + quote(value, safe="-_.~")
        parts.append(item)
    return "&".join(parts)


class WireClient:
    def __init__(
        self,
        endpoint: str,
        access_key_id: str,
        secret_access_key: str,
        region: str = "auto",
        vendor_prefix: str = "x-amz-",
        ext_prefix: str = "cf-",
        verify: bool | str = True,
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.credentials = Credentials(access_key_id, secret_access_key)
        self.region = region
        self.vendor_prefix = vendor_prefix
        self.ext_prefix = ext_prefix
        self.verify = verify
        self.timeout = timeout
        self.session = retry.mount(requests.Session())

    def vendor(self, suffix: str) -> str:
        """The standard S3 header prefix plus suffix (the spec's `x-vendor-`)."""
        return self.vendor_prefix + suffix

    def ext(self, suffix: str) -> str:
        """The provider extension header prefix plus suffix (the spec's `ext-`)."""
        return self.ext_prefix + suffix

    def url(self, bucket: str | None = None, key: str | None = None, query: Query = ()) -> str:
        path = "/"
        if bucket is not None:
            path += quote(bucket, safe="")
            if key is not None:
                path += "/" + quote(key, safe="/~")
        text = encode_query(query)
        return self.endpoint + path + (f"?{text}" if text else "")

    def prepare(
        self,
        method: str,
        bucket: str | None = None,
        key: str | None = None,
        *,
        query: Query = (),
        headers: Mapping[str, str] | None = None,
        body: Body = b"",
        sign: str = "header",
        region: str | None = None,
        credentials: Credentials | None = None,
        expires: int = 3600,
        payload_hash: str | None = None,
    ) -> PreparedWire:
        """Build and sign (`header`, `presign` or `none`) a request without sending it."""
        request = AWSRequest(
            method=method,
            url=self.url(bucket, key, query),
            headers=dict(headers or {}),
            data=body,
        )
        creds = credentials or self.credentials
        region_name = self.region if region is None else region
        if sign == "header":
            _PayloadAuth(creds, region_name, payload_hash).add_auth(request)
        elif sign == "presign":
            S3SigV4QueryAuth(creds, "s3", region_name, expires=expires).add_auth(request)
        elif sign != "none":
            raise ValueError(f"sign must be header, presign or none, not {sign!r}")
        prepared = request.prepare()
        return PreparedWire(method, prepared.url, dict(prepared.headers.items()), body)

    def send(self, prepared: PreparedWire) -> WireReply:
        response = self.session.request(
            prepared.method,
            prepared.url,
            headers=prepared.headers,
            data=prepared.body,
            timeout=self.timeout,
            verify=self.verify,
            allow_redirects=False,
        )
        body = response.content
        collector.add(
            Exchange.build(
                prepared.method,
                prepared.url,
                response.status_code,
                prepared.headers,
                response.headers,
                body,
                prepared.body,
            )
        )
        return WireReply(
            prepared.method, prepared.url, response.status_code, response.headers, body
        )

    def request(
        self, method: str, bucket: str | None = None, key: str | None = None, **options: Any
    ) -> WireReply:
        return self.send(self.prepare(method, bucket, key, **options))

    def presign(
        self, method: str, bucket: str | None = None, key: str | None = None, **options: Any
    ) -> str:
        return self.prepare(method, bucket, key, sign="presign", **options).url

    # conveniences for the common operations
    def create_bucket(
        self, bucket: str, location: str | None = None, headers: Mapping[str, str] | None = None
    ) -> WireReply:
        body = b""
        if location is not None:
            body = (
                '<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
                f"<LocationConstraint>{_escape(location)}</LocationConstraint>"
                "</CreateBucketConfiguration>"
            ).encode()
        return self.request("PUT", bucket, headers=headers, body=body)

    def head_bucket(self, bucket: str) -> WireReply:
        return self.request("HEAD", bucket)

    def get_bucket_location(self, bucket: str) -> WireReply:
        return self.request("GET", bucket, query=[("location", None)])

    def put_object(
        self,
        bucket: str,
        key: str,
        body: Body = b"",
        headers: Mapping[str, str] | None = None,
        method: str = "PUT",
    ) -> WireReply:
        return self.request(method, bucket, key, headers=headers, body=body)

    def get_object(
        self,
        bucket: str,
        key: str,
        range: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> WireReply:
        sent = dict(headers or {})
        if range is not None:
            sent["Range"] = range
        return self.request("GET", bucket, key, headers=sent)

    def delete_objects(
        self,
        bucket: str,
        keys: Iterable[str],
        quiet: bool | str = False,
        declaration: bool = False,
    ) -> WireReply:
        """DeleteObjects with the keys exactly as given (no trimming, no batching); a string
        `quiet` is sent as the <Quiet> text itself (another xs:boolean form)."""
        objects = "".join(f"<Object><Key>{_escape(k)}</Key></Object>" for k in keys)
        flag = quiet if isinstance(quiet, str) else ("true" if quiet else "false")
        text = (
            '<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<Quiet>{flag}</Quiet>{objects}</Delete>"
        )
        if declaration:
            text = '<?xml version="1.0" encoding="UTF-8"?>\n' + text
        body = text.encode()
        md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
        return self.request(
            "POST",
            bucket,
            query=[("delete", None)],
            body=body,
            headers={"Content-MD5": md5, "Content-Type": "application/xml"},
        )

    def list_objects_v2(self, bucket: str, **params: str) -> WireReply:
        query = [("list-type", "2"), *((k.replace("_", "-"), v) for k, v in params.items())]
        return self.request("GET", bucket, query=query)


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\r", "&#13;")
        .replace("\n", "&#10;")
    )
