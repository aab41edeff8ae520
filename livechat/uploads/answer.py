"""The page /servlet/fileupload answers, in the form CV5 reads (client-contract.md §2.2 (22)): an HTML page
holding one object literal `{api:'<cb>', params:{"filesUploaded":[…],"status":"success"|"fail"}}`, which
the chatbox cuts out from the first `{` to the last `}`. So the page has no other brace, and every string
in it is escaped so that nothing the visitor sent can close the literal, the script or the page. When the
page runs in the chatbox's hidden frame, it also posts that literal to the parent page, but only to an
origin this server accepts (CORS_ALLOWED_ORIGINS, or any when none is set), never to one it was merely told.
"""

import base64
import hashlib
import html
import json
import re
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponse

from bots.servlet.errors import Forbidden, InvalidField

# The callback names CV5 makes (dyduUploadCallBack_0PW): a JavaScript identifier, nothing else.
CALLBACK = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]{0,63}")
# A host name or an IP address (an IPv6 one without its brackets, as urlsplit gives it).
HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|[0-9A-Fa-f:.]{2,45}")
# Characters that could end the literal, the script element or the page, or that CV5's clean-up rewrites.
RISKY = {ord(char): f"\\u{ord(char):04x}" for char in "<>&'{}`"}
MESSAGES = {True: "Fichier reçu.", False: "Le fichier n'a pas été envoyé."}


def callback_name(value: str) -> str:
    """The `cb` parameter, checked: an identifier (it is written back into the page)."""
    value = (value or "").strip()
    if value and not CALLBACK.fullmatch(value):
        raise InvalidField("cb", "a JavaScript identifier of at most 64 characters")
    return value


def checked_origin(value: str) -> str:
    """The `origin` parameter (or the Origin header) as scheme://host[:port], rebuilt from its parts, if this
    server lets that origin call it; 400 for something that is not an origin, 403 for one not allowed."""
    value = (value or "").strip()
    if not value:
        return ""
    parts = urlsplit(value)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if (
        parts.scheme not in ("http", "https")
        or not HOST.fullmatch(parts.hostname or "")
        or port == -1
        or parts.username
        or parts.password
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise InvalidField("origin", "an origin such as https://www.example.com")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    origin = f"{parts.scheme}://{host}" + (f":{port}" if port else "")
    if not _allowed(origin):
        raise Forbidden(f"The site {origin} may not send files to this server.", code="ORIGIN_NOT_ALLOWED")
    return origin


def _allowed(origin: str) -> bool:
    if getattr(settings, "CORS_ALLOW_ALL_ORIGINS", False):
        return True
    return origin in {allowed.rstrip("/") for allowed in getattr(settings, "CORS_ALLOWED_ORIGINS", ())}


def js_string(text: str) -> str:
    """A JSON string literal that is also safe inside a script element and an HTML page."""
    return json.dumps(str(text), ensure_ascii=True).translate(RISKY)


def literal(callback: str, names: list[str], success: bool, error: str = "", code: str = "") -> str:
    files = ",".join(js_string(name) for name in names)
    params = [f'"filesUploaded":[{files}]', f'"status":{js_string("success" if success else "fail")}']
    if error:
        params += [f'"error":{js_string(error)}', f'"code":{js_string(code)}']
    # CV5 quotes `api` and `params` itself, then reads the rest as JSON.
    return "{api:'" + callback + "', params:{" + ",".join(params) + "}}"


def page(
    callback: str, origin: str, names: list[str], *, status: int = 200, error: str = "", code: str = ""
) -> HttpResponse:
    success = status == 200
    answer = literal(callback, names, success, error, code)
    text = MESSAGES[success] + (f" {error}" if error else "")
    # Visible text: escaped, and its braces as entities (the answer's literal must hold the only ones).
    shown = html.escape(text).replace("{", "&#123;").replace("}", "&#125;")
    script = ""
    if origin:
        script = (
            'var answer = document.getElementById("dydu-upload-answer").textContent;\n'
            f"if (window.parent !== window) window.parent.postMessage(answer, {js_string(origin)});"
        )
    body = (
        '<!DOCTYPE html>\n<html lang="fr">\n<head>\n<meta charset="utf-8">\n<meta name="robots" content="noindex">\n'
        "<title>Envoi de fichier</title>\n</head>\n<body>\n"
        f"<p>{shown}</p>\n"
        f'<script type="text/plain" id="dydu-upload-answer">{answer}</script>\n'
        + (f"<script>{script}</script>\n" if script else "")
        + "</body>\n</html>\n"
    )
    response = HttpResponse(body, status=status, content_type="text/html; charset=utf-8")
    script_hash = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    # Only that one script may run; the page loads nothing and may be framed by the chatbox's page only.
    response["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'sha256-{script_hash}'; base-uri 'none'; form-action 'none'"
        + (f"; frame-ancestors {origin}" if origin else "")
    )
    response.servlet_page = True  # CV5 reads this page whatever the status (bots/servlet/middleware.py)
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response
