"""Servlet routes: one optional trailing slash, never a redirect (a redirect would lose a POST)."""

from django.urls import re_path


def servlet_path(route: str, view, name: str | None = None):
    """`route` uses <name> for a path segment, e.g. "chat/talk/<bot_uuid>/<context_id>"."""
    regex = "^" + _segments(route) + "/?$"
    return re_path(regex, view, name=name)


def _segments(route: str) -> str:
    parts = []
    for part in route.strip("/").split("/"):
        if part.startswith("<") and part.endswith(">"):
            parts.append(f"(?P<{part[1:-1]}>[^/]+)")
        else:
            parts.append(part.replace(".", r"\."))
    return "/".join(parts)
