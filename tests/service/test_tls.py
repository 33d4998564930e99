"""TLS for gRPC and REST (issue 13): a certificate for 127.0.0.1 made in the test (its own CA),
``cardcore serve --tls-cert --tls-key``, the Python client over TLS trusting that CA, REST over
HTTPS; a plaintext client is refused, and so is a client that does not trust the CA."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from cardcore_client import CallError, Client

from .helpers import ServerProcess


def make_certificate(tmp: Path) -> tuple[Path, Path, bytes]:
    """A CA, and a certificate for 127.0.0.1 signed by it: (cert chain, key, CA PEM)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cardcore test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    chain, key_path = tmp / "server.pem", tmp / "server.key"
    chain.write_bytes(cert.public_bytes(pem))
    key_path.write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return chain, key_path, ca.public_bytes(pem)


class TlsServer(ServerProcess):
    """``cardcore serve`` with REST on, announcing ``https://``."""

    READY = (*ServerProcess.READY, b"cardcore REST on https://")

    def __init__(self, tmp: Path, *args: str) -> None:
        super().__init__(tmp, "--rest-port", "0", *args, name="tls")
        self.rest_port = 0

    def _ready(self, lines: list[str]) -> None:
        super()._ready(lines)
        self.rest_port = int(lines[1].rsplit(":", 1)[1])


def test_grpc_and_rest_over_tls(tmp_path: Path) -> None:
    chain, key, ca = make_certificate(tmp_path)
    (tmp_path / "ca.pem").write_bytes(ca)
    proc = TlsServer(tmp_path, "--tls-cert", str(chain), "--tls-key", str(key))
    proc.start()
    try:

        async def main() -> None:
            async with Client(proc.target, root_certificates=ca, attempts=1) as c:
                created = await c.create_game("speed", ["human", "random"])
                view = await c.game(created.game_id, created.seat_tokens[0]).view()
                assert view.seat == 0
            async with Client(proc.target, attempts=1, attempt_timeout_s=2.0) as plain:
                with pytest.raises(CallError) as refused:
                    await plain.list_games()
                assert refused.value.status in ("UNAVAILABLE", "DEADLINE_EXCEEDED")
            async with Client(proc.target, tls=True, attempts=1, attempt_timeout_s=2.0) as blind:
                with pytest.raises(CallError):  # the system's CAs do not know the test CA
                    await blind.list_games()

        asyncio.run(main())
        url = f"https://127.0.0.1:{proc.rest_port}/v1/games"
        r = httpx.get(url, verify=ssl.create_default_context(cafile=tmp_path / "ca.pem"))
        assert r.status_code == 200 and r.json()["games"]
        with pytest.raises(httpx.HTTPError):  # plain HTTP to the TLS port
            httpx.get(url.replace("https", "http"), timeout=2.0)
        with pytest.raises(httpx.ConnectError):  # a client that does not trust the CA
            httpx.get(url, timeout=2.0)
    finally:
        assert proc.stop() == 0


def test_a_certificate_without_its_key_is_refused(tmp_path: Path) -> None:
    chain, _, _ = make_certificate(tmp_path)
    proc = ServerProcess(tmp_path, "--tls-cert", str(chain))
    with pytest.raises(RuntimeError, match="server did not start"):
        proc.start()
    assert "--tls-cert and --tls-key go together" in proc.log_text()
