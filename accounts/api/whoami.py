"""The Who am I servlet group (GET whoami), beside authentication: what the servlet received, in the shape
the chatbox reads (client-contract.md §2.2 (25)).

The chatbox looks for the first object of `headers` that has a `host` property, so each header is
{"name": n, "value": v, n: v}: a name/value pair that also carries its own name as a key. Secrets are
never echoed: Authorization shows its scheme and the start of the credential, cookies their names only.
"""

from drf_spectacular.utils import extend_schema

from accounts.lockout import client_address
from accounts.permissions import authenticate_request, request_token, role_of
from bots.servlet.envelope import plain_json
from bots.servlet.errors import ServletError
from bots.servlet.schema import ALWAYS, OBJECT, plain_schema, responses
from bots.servlet.views import ServletView

SECRET_HEADERS = {"proxy-authorization", "oidcaccesstoken", "x-csrftoken", "x-api-key"}
SHOWN_CHARACTERS = 4


def describe(request) -> dict:
    headers = [_header(name.lower(), value) for name, value in request.headers.items()]
    if not any(header["name"] == "host" for header in headers):
        # HTTP/1.0 clients may send no Host; the chatbox still needs one to show.
        headers.insert(0, _header("host", request.get_host()))
    body = {
        "headers": headers,
        "remoteAddress": client_address(request),
        "method": request.method,
        "path": request.path,
        "secure": request.is_secure(),
        "user": None,
        "authentication": None,
    }
    if request.META.get("HTTP_AUTHORIZATION", "").strip():
        try:
            user = authenticate_request(request)
        except ServletError as error:
            body["authentication"] = {"accepted": False, "code": error.code, "error": error.message}
        else:
            membership = getattr(user, "membership", None) if hasattr(user, "membership") else None
            body["user"] = {
                "login": user.get_username(),
                "role": role_of(user),
                "account": membership.account.name if membership else None,
            }
            token = request_token(request)
            body["authentication"] = {
                "accepted": True,
                "method": "token" if token else "basic",
                "expiresAt": token.expires_at.isoformat() if token else None,
            }
    return body


def _header(name: str, value: str) -> dict:
    shown = _redacted(name, value)
    return {"name": name, "value": shown, name: shown}


def _redacted(name: str, value: str) -> str:
    if name == "authorization":
        scheme, _, credential = value.strip().partition(" ")
        if not credential:
            scheme, credential = "", scheme
        start = credential[:SHOWN_CHARACTERS] if len(credential) > 3 * SHOWN_CHARACTERS else ""
        hidden = f"{start}… ({len(credential)} characters, hidden)"
        return f"{scheme} {hidden}" if scheme else hidden
    if name == "cookie":
        names = [part.split("=", 1)[0].strip() for part in value.split(";") if part.strip()]
        return "; ".join(f"{cookie}=… (hidden)" for cookie in names)
    if name in SECRET_HEADERS:
        return f"… ({len(value)} characters, hidden)"
    return value


@extend_schema(
    tags=["Who am I"],
    summary="What the servlet received: headers (a list of {name, value}), remote address, authenticated user",
    request=None,
    responses=responses({200: plain_schema(OBJECT)}, 400, *ALWAYS),
)
class WhoAmIView(ServletView):
    def get(self, request):
        return plain_json(describe(request))

    def post(self, request):
        return self.get(request)
