"""The service provider's signing key and certificate: files named by the environment
(SAML_SP_KEY_FILE, SAML_SP_CERT_FILE), else a self-signed pair generated once under data/saml/."""

import datetime
import os
import threading
from pathlib import Path

from django.conf import settings

_lock = threading.Lock()


def setting(name: str) -> str:
    """A SAML setting: Django's settings (tests), else the environment (secrets come from there)."""
    return getattr(settings, name, "") or os.environ.get(name, "")


def key_pair() -> tuple[str, str]:
    """(key file, certificate file) as paths pysaml2 and xmlsec1 read."""
    key, cert = setting("SAML_SP_KEY_FILE"), setting("SAML_SP_CERT_FILE")
    if key and cert:
        return key, cert
    folder = Path(settings.DATA_DIR) / "saml"
    key_path, cert_path = folder / "sp-key.pem", folder / "sp-cert.pem"
    with _lock:
        if not (key_path.exists() and cert_path.exists()):
            generate(folder, "bot-platform-saml-sp")
    return str(key_path), str(cert_path)


def generate(folder: Path, common_name: str, years: int = 10) -> tuple[Path, Path]:
    """A 2048-bit RSA key and its self-signed certificate, written to `folder` (the key readable by its
    owner only). The embedded default, and the test identity provider's own pair."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=365 * years))
        .sign(private, hashes.SHA256())
    )
    key_path, cert_path = folder / "sp-key.pem", folder / "sp-cert.pem"
    key_bytes = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key_bytes)
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path
