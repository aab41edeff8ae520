"""The SAML2 service provider for chatboxes (saml2/status, saml2/userinfo, metadata, the login flow)."""
