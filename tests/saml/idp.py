"""An identity provider for the tests: pysaml2 plays it, on a free port of this machine over real HTTP,
with its own generated key pair. GET /sso/redirect logs the configured user in at once and answers the
auto-posting form (HTTP-POST binding) a real identity provider sends back to the service provider."""

import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.config import IdPConfig
from saml2.metadata import create_metadata_string
from saml2.saml import NAME_FORMAT_URI, NAMEID_FORMAT_PERSISTENT
from saml2.server import Server

from accounts.saml.keys import generate

ALICE = {"uid": ["alice"], "mail": ["alice@example.org"], "displayName": ["Alice Martin"]}


class IdentityProvider:
    def __init__(self, folder: Path, sp_metadata: str, *other_sp_metadata: str):
        self.key_file, self.cert_file = generate(folder, "test-identity-provider")
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.idp = self
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # Every service provider this identity provider knows (ours, and others for misaddressed answers).
        self.sp_metadata = [sp_metadata, *other_sp_metadata]
        self.user, self.identity = "alice", dict(ALICE)
        # What the next answer does: "normal", "expired" (its assertion's time is over), or another
        # audience than the service provider that asked.
        self.lifetime_minutes = 15
        self.audience = None
        self.logins = 0
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def config(self) -> IdPConfig:
        config = IdPConfig()
        config.load(
            {
                "entityid": self.base + "/idp",
                "xmlsec_binary": shutil.which("xmlsec1"),
                "key_file": str(self.key_file),
                "cert_file": str(self.cert_file),
                "metadata": {"inline": self.sp_metadata},
                "service": {
                    "idp": {
                        "endpoints": {"single_sign_on_service": [(self.base + "/sso/redirect", BINDING_HTTP_REDIRECT)]},
                        "name_id_format": [NAMEID_FORMAT_PERSISTENT],
                        "policy": {
                            "default": {"lifetime": {"minutes": self.lifetime_minutes}, "name_form": NAME_FORMAT_URI}
                        },
                        "want_authn_requests_signed": True,
                        "sign_response": False,
                        "sign_assertion": True,
                    }
                },
            }
        )
        return config

    def metadata(self) -> str:
        return create_metadata_string(None, self.config(), valid=24).decode("utf-8")

    def answer(self, query: dict) -> str:
        """The HTML form posting the signed Response for the user to the service provider's ACS; the
        service provider's AuthnRequest must be signed by it (its metadata's certificate)."""
        server = Server(config=self.config())
        parsed = server.parse_authn_request(
            query["SAMLRequest"],
            BINDING_HTTP_REDIRECT,
            relay_state=query.get("RelayState"),
            sigalg=query.get("SigAlg"),
            signature=query.get("Signature"),
        )
        request = parsed.message
        acs = request.assertion_consumer_service_url
        response = server.create_authn_response(
            self.identity,
            in_response_to=request.id,
            destination=acs,
            sp_entity_id=self.audience or request.issuer.text,
            userid=self.user,
            authn={"class_ref": "urn:oasis:names:tc:SAML:2.0:ac:classes:Password", "authn_auth": self.base + "/idp"},
            sign_assertion=True,
        )
        self.logins += 1
        return server.apply_binding(BINDING_HTTP_POST, str(response), acs, query.get("RelayState", ""), response=True)[
            "data"
        ]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        idp: IdentityProvider = self.server.idp
        url = urlsplit(self.path)
        query = {name: values[0] for name, values in parse_qs(url.query).items()}
        if url.path != "/sso/redirect" or "SAMLRequest" not in query:
            self.send_error(404)
            return
        try:
            page = idp.answer(query)
        except Exception as error:  # the test reads what went wrong in the body
            self.send_error(400, explain=repr(error))
            return
        body = page.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass
