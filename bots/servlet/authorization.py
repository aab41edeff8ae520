"""Declares the servlet's Authorization header to the API console (drf-spectacular), so that its
"Authorize" button sends a token or a Basic value with every protected call it tries.

ServletAuthorization checks nothing: protected views call accounts.permissions.authorize, which reads
the same header and answers 401/403 in the servlet error shape.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication


class ServletAuthorization(BaseAuthentication):
    def authenticate(self, request):
        return None


class ServletAuthorizationScheme(OpenApiAuthenticationExtension):
    target_class = ServletAuthorization
    name = "servletAuthorization"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A token from POST /servlet/api/authentication or /servlet/authentication.html "
            "(valid 24 hours), as is or as 'Bearer <token>'; or 'Basic base64(login:password)'.",
        }
