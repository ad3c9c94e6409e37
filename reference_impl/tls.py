"""A self-signed certificate for the reference's TLS listener, made at startup in the data dir.

Why TLS at all: botocore sends `aws-chunked` bodies with trailing checksums (what current SDKs
do by default) only over HTTPS, so the S3 API is also served over TLS for real clients to
exercise that path. The certificate names 127.0.0.1, ::1 and localhost; clients trust it by
being handed its PEM file (the ready file's `verify`), never by turning verification off.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from reference_impl.atomic_file import replace_file

VALID_DAYS = 825
COMMON_NAME = "edge-conformance reference"


@dataclass(frozen=True)
class CertFiles:
    cert: Path  # PEM certificate; also the CA bundle a client verifies against
    key: Path  # PEM private key (unencrypted, mode 0600)


def ensure_certificate(directory: Path) -> CertFiles | None:
    """The certificate of `directory` (made when absent); None when nothing can make one."""
    directory.mkdir(parents=True, exist_ok=True)
    files = CertFiles(directory / "cert.pem", directory / "key.pem")
    if files.cert.exists() and files.key.exists():
        return files
    try:
        _make_with_cryptography(files)
    except ImportError:
        if not _make_with_openssl(files):
            return None
    return files


def _write_private(path: Path, data: bytes) -> None:
    replace_file(path, data, private=True)


def _make_with_cryptography(files: CertFiles) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME)])
    now = dt.datetime.now(dt.UTC)
    names: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("::1")),
    ]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        # a CA certificate that is also the leaf: clients accept it as their whole trust bundle
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    _write_private(
        files.key,
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )
    _write_private(files.cert, cert.public_bytes(serialization.Encoding.PEM))


def _make_with_openssl(files: CertFiles) -> bool:
    """Fallback for a machine without the `cryptography` package."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return False
    command = [
        openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-days", str(VALID_DAYS), "-subj", f"/CN={COMMON_NAME}",
        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
        "-keyout", str(files.key), "-out", str(files.cert),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, check=False, timeout=30)
    return result.returncode == 0 and files.cert.exists()
