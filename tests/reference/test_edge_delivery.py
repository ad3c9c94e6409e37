"""The edge surface's delivery to http(s) collectors and its internal flush trigger.

The suite reads logs back from r2:// buckets; collectors (an HTTP POST of a gzip NDJSON batch)
and the flush trigger are the reference's own, so they are pinned here.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import entrypoint_guard, log_rule

FLUSH_PATH = "/cdn-cgi/edge-conformance/flush"


class _Collector(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.server.bodies.append((dict(self.headers), self.rfile.read(length)))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[dict[str, str], bytes]]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    server.bodies = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/logs", server.bodies  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


def test_http_collector_gets_gzip_ndjson_of_the_selected_fields(
    reference: Any, collector: tuple[str, list[tuple[dict[str, str], bytes]]]
) -> None:
    url, bodies = collector
    api = RulesApiClient.from_surface(reference.ready["surfaces"]["rules_api"])
    edge = reference.ready["surfaces"]["edge"]["url"]
    with entrypoint_guard(api):
        api.put_entrypoint({"rules": [log_rule(request=("x-a",))]}).assert_envelope_ok()
        api.request_ownership(url).assert_envelope_ok(200)
        token = bodies.pop()[1].decode()
        options = "fields=ClientRequestURI,RequestHeaders,EdgeStartTimestamp&timestamps=unixnano"
        job = api.create_job(
            {
                "name": "proj-collector",
                "destination_conf": url,
                "dataset": "http_requests",
                "logpull_options": options,
                "ownership_challenge": token,
                "enabled": True,
            }
        ).assert_envelope_ok()
        try:
            assert requests.get(edge + "/hello?x=1", headers={"x-a": "v"}, timeout=5).ok
            flushed = requests.post(edge + FLUSH_PATH, timeout=10).json()
            assert flushed["batches"] >= 1
            deadline = time.monotonic() + 5
            while not bodies and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            api.delete_job(job["id"]).assert_envelope_ok()
    headers, body = bodies[-1]
    assert headers.get("Content-Encoding") == "gzip"
    lines = [json.loads(line) for line in gzip.decompress(body).decode().splitlines()]
    entry = next(e for e in lines if e["ClientRequestURI"] == "/hello?x=1")
    assert set(entry) == {"ClientRequestURI", "RequestHeaders", "EdgeStartTimestamp"}
    assert entry["RequestHeaders"] == {"x-a": "v"}
    assert isinstance(entry["EdgeStartTimestamp"], int) and entry["EdgeStartTimestamp"] > 10**18


def test_origin_echoes_and_sends_two_set_cookies(reference: Any) -> None:
    edge = reference.ready["surfaces"]["edge"]["url"]
    reply = requests.get(
        edge + "/p", headers={"x-ec-transform": "orig", "x-ec-respond-x-b": "w"}, timeout=5
    )
    assert reply.status_code == 200 and reply.headers["x-b"] == "w"
    assert reply.raw.headers.getlist("set-cookie") == ["ec_first=1; Path=/", "ec_second=2; Path=/"]
    assert reply.json()["headers"]["x-ec-transform"] != "orig"  # the transform rule applied
