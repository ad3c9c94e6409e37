"""A signed S3 request whose body is sent in two halves, with the rest held by the test.

Why: a race test needs one write certainly under way (its headers taken up, its body not yet
complete) while another request runs to its end. The headers go out with
`Expect: 100-continue`; the first half of the body follows once the target answered `100` (it
has then started on the request) or after `CONTINUE_WAIT_S` (servers may skip the interim
answer, RFC 9110 section 10.1.1). `finish()` sends the rest and reads the answer.
"""

from __future__ import annotations

import contextlib
import http.client
import select
import ssl
from collections.abc import Mapping
from urllib.parse import urlsplit

from conformance.clients.evidence import Exchange, collector
from conformance.clients.s3_wire import WireClient, WireReply

CONTINUE_WAIT_S = 3.0
TIMEOUT_S = 60.0


def _connection(
    wire: WireClient, host: str, port: int | None, https: bool
) -> http.client.HTTPConnection:
    if not https:
        return http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)
    context = ssl.create_default_context(
        cafile=wire.verify if isinstance(wire.verify, str) else None
    )
    if wire.verify is False:
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    return http.client.HTTPSConnection(host, port, timeout=TIMEOUT_S, context=context)


class HalfSent:
    """One request with half its body on the wire (UNSIGNED-PAYLOAD: streamed by hand)."""

    def __init__(
        self,
        wire: WireClient,
        method: str,
        bucket: str,
        key: str,
        body: bytes,
        *,
        query: list[tuple[str, str | None]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.body = body
        sent = {**(headers or {}), "Content-Length": str(len(body))}
        self.prepared = wire.prepare(
            method, bucket, key, query=query or [], headers=sent, payload_hash="UNSIGNED-PAYLOAD"
        )
        url = urlsplit(self.prepared.url)
        self.conn = _connection(wire, url.hostname or "127.0.0.1", url.port, url.scheme == "https")
        target = f"{url.path}?{url.query}" if url.query else url.path
        self.conn.putrequest(method, target, skip_accept_encoding=True)
        for name, value in self.prepared.headers.items():
            if name.lower() not in ("content-length", "host"):
                self.conn.putheader(name, value)
        self.conn.putheader("Content-Length", str(len(body)))
        self.conn.putheader("Expect", "100-continue")
        self.conn.endheaders()
        sock = self.conn.sock
        if sock is not None:  # readable: `100 Continue` (or an early final answer) arrived
            select.select([sock], [], [], CONTINUE_WAIT_S)
        self.conn.send(body[: len(body) // 2])

    def finish(self) -> WireReply:
        """Send the rest of the body; the answer (the connection is closed afterwards)."""
        try:
            # answered early and closed: the answer is still there to read
            with contextlib.suppress(OSError):
                self.conn.send(self.body[len(self.body) // 2 :])
            response = self.conn.getresponse()
            payload = response.read()
            headers = {k: v for k, v in response.getheaders()}
        finally:
            self.conn.close()
        prepared = self.prepared
        collector.add(
            Exchange.build(
                prepared.method, prepared.url, response.status, prepared.headers, headers, payload
            )
        )
        return WireReply(prepared.method, prepared.url, response.status, headers, payload)

    def close(self) -> None:
        self.conn.close()
