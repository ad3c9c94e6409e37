"""JSON-RPC gateway client: what the suite sends to `POST {url}/v1/<network>`, on the wire.

Plain `requests` (JSON-RPC is POST: never retried), so the suite sees exactly what the target
answers (status, headers, body), and each exchange is recorded as evidence.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests

from conformance.clients import retry
from conformance.clients.evidence import Exchange, collector
from conformance.clients.hand_http import broken_answer, hand_connection, send_fields

DEFAULT_NETWORKS = ("sepolia", "rinkeby")
# behaviours of the provider's gateway in front of the nodes: a 403 for a method outside its
# allow-list, a 404 for a network it does not route. A plain node offers neither.
PROVIDER_GATEWAY = ("method-allow-list", "network-routing")
DEFAULT_TIMEOUT_S = 30.0
JSON_HEADERS = {"Content-Type": "application/json"}
_UNSET: Any = object()


@dataclass
class Reply:
    """One HTTP exchange with the gateway."""

    status: int
    headers: dict[str, str]
    body: bytes
    json: Any = field(default=None)
    is_json: bool = False
    # the request this answers ("POST /v1/sepolia {...}"), so a failure message shows both
    request: str = ""

    @classmethod
    def from_response(cls, resp: requests.Response) -> Reply:
        headers = {k.lower(): v for k, v in resp.headers.items()}
        body = resp.content
        try:
            doc, ok = (json.loads(body), True) if body.strip() else (None, False)
        except ValueError:
            doc, ok = None, False
        return cls(resp.status_code, headers, body, doc, ok)

    def describe(self) -> str:
        text = self.body[:300].decode("utf-8", errors="replace")
        answer = f"HTTP {self.status}: {text or '(empty body)'}"
        return f"{self.request} -> {answer}" if self.request else answer

    def result(self) -> Any:
        """The `result` of a successful single response; AssertionError otherwise."""
        assert self.status == 200, f"expected HTTP 200, got {self.describe()}"
        assert isinstance(self.json, dict), f"expected a JSON-RPC object, got {self.describe()}"
        assert "error" not in self.json, f"expected a result, got {self.describe()}"
        assert "result" in self.json, f"response has no result: {self.describe()}"
        return self.json["result"]

    def error(self) -> dict[str, Any]:
        """The `error` object of a single error response; AssertionError otherwise."""
        assert isinstance(self.json, dict), f"expected a JSON-RPC object, got {self.describe()}"
        err = self.json.get("error")
        assert isinstance(err, dict), f"expected a JSON-RPC error object, got {self.describe()}"
        return err


class GatewayClient:
    def __init__(
        self,
        url: str,
        networks: list[str],
        timeout: float = DEFAULT_TIMEOUT_S,
        provider_gateway: tuple[str, ...] = PROVIDER_GATEWAY,
    ) -> None:
        self.url = url.rstrip("/")
        self.networks = networks
        self.timeout = timeout
        self.provider_gateway = provider_gateway
        self.session = retry.mount(requests.Session())

    @classmethod
    def from_surface(cls, surface: Mapping[str, Any]) -> GatewayClient:
        networks = [str(n) for n in surface.get("networks") or DEFAULT_NETWORKS]
        timeout = float(surface.get("timeout", DEFAULT_TIMEOUT_S))
        declared = surface.get("provider_gateway", PROVIDER_GATEWAY)
        return cls(str(surface["url"]), networks, timeout, tuple(str(b) for b in declared))

    def offers(self, network: str) -> bool:
        return network in self.networks

    def offers_behaviour(self, behaviour: str) -> bool:
        """Whether the target declares this provider-gateway behaviour (PROVIDER_GATEWAY)."""
        return behaviour in self.provider_gateway

    def url_for(self, network: str) -> str:
        return below(self.url, f"/v1/{network}")

    def call(self, network: str, method: str, params: Any = _UNSET, id: Any = 1) -> Reply:
        """One JSON-RPC request; `params=_UNSET` leaves the member out."""
        return self.post_json(network, request_object(method, params, id))

    def notify(self, network: str, method: str, params: Any = _UNSET) -> Reply:
        """A notification: a request without an id member."""
        return self.post_json(network, request_object(method, params, _UNSET))

    def post_json(self, network: str, doc: Any) -> Reply:
        return self.post_raw(network, json.dumps(doc), JSON_HEADERS)

    def post_raw(
        self,
        network: str,
        body: bytes | str,
        headers: Mapping[str, str] | None = None,
        http_method: str = "POST",
    ) -> Reply:
        """Sends the body exactly as given (no Content-Type unless `headers` has one)."""
        return self.post_path(f"/v1/{network}", body, headers, http_method)

    def post_path(
        self,
        path: str,
        body: bytes | str,
        headers: Mapping[str, str] | None = None,
        http_method: str = "POST",
    ) -> Reply:
        """`post_raw` to any path below the gateway URL (`/v2/sepolia`: another version)."""
        url = below(self.url, path)
        data = body.encode("utf-8") if isinstance(body, str) else body
        sent = dict(headers or {})
        resp = self.session.request(
            http_method, url, data=data, headers=sent, timeout=self.timeout, allow_redirects=False
        )
        reply = Reply.from_response(resp)
        sent_text = data[:300].decode("utf-8", errors="replace")
        reply.request = f"{http_method} {path} {sent_text or '(empty body)'}"
        collector.add(
            Exchange.build(http_method, url, reply.status, sent, resp.headers, reply.body, data)
        )
        return reply

    def post_chunked(
        self,
        network: str,
        body: bytes,
        headers: Mapping[str, str] | None = None,
        codings: str = "chunked",
    ) -> Reply:
        """POSTs the body in the chunked framing (no Content-Length): requests sends an iterable
        body that way, here in two pieces. `codings` is the Transfer-Encoding line sent
        (`gzip, chunked`: the caller has gzipped `body` itself), set after requests prepared
        the request, which writes its own `chunked` over a header given to it."""
        url = self.url_for(network)
        half = len(body) // 2
        prepared = self.session.prepare_request(
            requests.Request("POST", url, data=iter([body[:half], body[half:]]), headers=headers)
        )
        prepared.headers["Transfer-Encoding"] = codings
        sent = dict(prepared.headers)
        settings = self.session.merge_environment_settings(url, {}, None, None, None)
        resp = self.session.send(prepared, timeout=self.timeout, allow_redirects=False, **settings)
        reply = Reply.from_response(resp)
        plain = codings.replace(" ", "").lower() == "chunked"
        shown = body[:300].decode("utf-8", "replace") if plain else f"({len(body)} bytes coded)"
        reply.request = f"POST /v1/{network} (Transfer-Encoding: {codings}) {shown}"
        collector.add(
            Exchange.build("POST", url, reply.status, sent, resp.headers, reply.body, body)
        )
        return reply

    def post_with_hosts(self, network: str, body: bytes, hosts: Sequence[str]) -> Reply:
        """POST `body` over HTTP/1.1 with exactly these Host lines (none when empty), written by
        hand with http.client: no HTTP library sends a request without Host or with two."""
        url = self.url_for(network)
        conn = hand_connection(url, self.session.verify, self.timeout)
        sent = {"Content-Type": "application/json", "Content-Length": str(len(body))}
        fields = [*(("Host", value) for value in hosts), *sent.items()]
        try:
            status, got, answer = send_fields(conn, "POST", url, fields, body, skip_host=True)
            answer_headers = {k.lower(): v for k, v in got}
        except (http.client.HTTPException, ConnectionError) as exc:
            collector.add(broken_answer("POST", url, {**sent, "Host": ", ".join(hosts)}, exc))
            raise
        finally:
            conn.close()
        try:
            doc, ok = (json.loads(answer), True) if answer.strip() else (None, False)
        except ValueError:
            doc, ok = None, False
        reply = Reply(status, answer_headers, answer, doc, ok)
        reply.request = f"POST /v1/{network} with {len(hosts)} Host line(s) {list(hosts)}"
        shown = {**sent, "Host": ", ".join(hosts) + f" ({len(hosts)} lines)"}
        collector.add(Exchange.build("POST", url, status, shown, answer_headers, answer, body))
        return reply


def below(base: str, path: str) -> str:
    """`path` under the base URL's path, the base's query kept after it: a gateway URL that
    carries its key as a query (`https://gw.example/?key=k`) gives `/v1/sepolia?key=k`, not
    `/?key=k/v1/sepolia`."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + path))


def request_object(method: str, params: Any = _UNSET, id: Any = _UNSET) -> dict[str, Any]:
    """A JSON-RPC 2.0 request; leaving `id` out makes it a notification."""
    doc: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not _UNSET:
        doc["params"] = params
    if id is not _UNSET:
        doc["id"] = id
    return doc


def preflight(surface: Mapping[str, Any]) -> str | None:
    """None when the gateway answers HTTP at all, else one line naming the surface and problem."""
    url = str(surface.get("url", "")).rstrip("/")
    if not url:
        return "gateway surface: no url configured"
    networks = list(surface.get("networks") or DEFAULT_NETWORKS)
    probe = below(url, f"/v1/{networks[0]}")
    body = json.dumps(request_object("eth_chainId", [], 1))
    try:
        requests.post(probe, data=body, headers=JSON_HEADERS, timeout=DEFAULT_TIMEOUT_S)
    except requests.RequestException as exc:
        return f"gateway surface at {probe} is unreachable: {type(exc).__name__}: {exc}"[:300]
    return None
