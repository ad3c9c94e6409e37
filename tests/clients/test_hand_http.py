"""The hand-written connection (conformance/clients/hand_http.py) reaches and trusts what the
client's `requests` calls reach and trust, and a gateway URL keeps its query (a review's
findings, 2026-11-29: an IPv6 literal without a port was read as host "::" port 1, a CA
directory raised, REQUESTS_CA_BUNDLE was ignored, user information went into Host, and
`/v1/<network>` was put after a base URL's query)."""

from __future__ import annotations

import contextlib
import datetime as dt
import http.client
import socket
import threading
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conformance.clients.evidence import collector
from conformance.clients.gateway import below
from conformance.clients.hand_http import hand_connection, host_header, tls_context


@pytest.mark.parametrize(
    ("url", "host", "port"),
    [
        ("http://[::1]/x", "::1", 80),
        ("https://[::1]/x", "::1", 443),
        ("http://[::1]:8080/x", "::1", 8080),
        ("http://example.test/x", "example.test", 80),
        ("http://user:pw@example.test:9000/x", "example.test", 9000),
    ],
)
def test_the_connection_goes_to_the_urls_host_and_port(url: str, host: str, port: int) -> None:
    conn = hand_connection(url, None, 5)
    assert (conn.host, conn.port) == (host, port)


def _answer_once(server: socket.socket, answer: bytes) -> int:
    """Serve one connection of `server` in a thread: read the request, write `answer`, close."""

    def serve() -> None:
        peer, _ = server.accept()
        with peer:
            peer.settimeout(0.5)
            with contextlib.suppress(OSError):  # read all the request: unread bytes reset it
                while peer.recv(4096):
                    pass
            peer.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return int(server.getsockname()[1])


def test_an_ipv6_literal_is_reached() -> None:
    try:
        server = socket.create_server(("::1", 0), family=socket.AF_INET6)
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    port = _answer_once(server, b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
    conn = hand_connection(f"http://[::1]:{port}/", None, 5)
    try:
        conn.request("GET", "/")
        assert conn.getresponse().status == 204
    finally:
        conn.close()
        server.close()


def _ca(folder: Path, name: str) -> Path:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    path = folder / f"{name}.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def _subjects(context: object) -> set[str]:
    certs = context.get_ca_certs()  # type: ignore[attr-defined]
    return {value for cert in certs for rdn in cert["subject"] for key, value in rdn}


def test_a_ca_bundle_file_a_directory_or_the_environments_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = _ca(tmp_path, "ec-test-ca-file")
    assert "ec-test-ca-file" in _subjects(tls_context(str(bundle)))
    folder = tmp_path / "capath"
    folder.mkdir()
    tls_context(str(folder))  # a directory, as requests takes it: no error
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(_ca(tmp_path, "ec-test-ca-env")))
    assert "ec-test-ca-env" in _subjects(tls_context(True))
    assert "ec-test-ca-env" in _subjects(tls_context(None))
    assert tls_context(False).check_hostname is False


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://user:pw@example.test:9000/b/k", "example.test:9000"),
        ("http://example.test/b/k", "example.test"),
        ("http://[::1]:8080/b", "[::1]:8080"),
        ("https://S3.Example:443/b/k", "s3.example"),
        ("http://s3.example:80/b", "s3.example"),
        ("https://s3.example:80/b", "s3.example:80"),
    ],
)
def test_host_is_what_botocore_signs(url: str, host: str) -> None:
    """No user information, and a default port left out, as botocore's SigV4 signs the host
    (a review's finding: `s3.example:443` sent where `s3.example` was signed)."""
    from botocore.auth import _host_from_url

    assert host_header(url) == host == _host_from_url(url.replace("user:pw@", ""))


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://gw.example", "https://gw.example/v1/sepolia"),
        ("https://gw.example/", "https://gw.example/v1/sepolia"),
        ("https://gw.example/key123", "https://gw.example/key123/v1/sepolia"),
        ("https://gw.example/?key=k", "https://gw.example/v1/sepolia?key=k"),
        ("https://gw.example/p/?key=k&x=1", "https://gw.example/p/v1/sepolia?key=k&x=1"),
    ],
)
def test_the_gateway_path_goes_under_the_base_path_before_its_query(base: str, url: str) -> None:
    assert below(base, "/v1/sepolia") == url


def test_an_answer_cut_short_leaves_evidence() -> None:
    """A connection closed mid-answer raises as before, and the report shows what was sent."""
    from conformance.clients.gateway import GatewayClient

    server = socket.create_server(("127.0.0.1", 0))
    port = _answer_once(server, b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")
    client = GatewayClient(f"http://127.0.0.1:{port}", ["sepolia"], timeout=5)
    try:
        with pytest.raises(http.client.IncompleteRead):
            client.post_with_hosts("sepolia", b"{}", [f"127.0.0.1:{port}"])
    finally:
        server.close()
    last = collector.exchanges[-1]  # the newest: the list is bounded, its length may not grow
    assert last.status is None and "no whole answer: IncompleteRead" in last.body_excerpt
