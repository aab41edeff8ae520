"""The trail over each back-office page (unfold's header title), led by the page's sidebar group instead of
Django's app: "Learning › Misunderstood questions", "Preferences › API › API access" (accounts/navigation.py)."""

from django import template
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from unfold.templatetags.unfold import header_title

from accounts.navigation import HOME, place

register = template.Library()


@register.simple_tag(takes_context=True)
def sidebar_trail(context) -> str:
    request = context.request
    found = place(request.path)
    if found is None or found.link == HOME:
        return header_title(context)  # a page outside the sidebar, or the home page: unfold's own title
    parts = [{"title": title} for title in found.trail]  # a group has no page of its own: no link
    parts.append({"title": found.title, "link": found.link})
    if request.path != found.link:
        parts.extend(_below(context))
    return render_to_string("unfold/helpers/header_title.html", {"parts": parts})


def _below(context) -> list[dict]:
    """What the page is under its sidebar entry: the row it shows, else its own title (an added row, a bot's
    import page, a confirmation)."""
    shown = context.get("original") or context.get("object")
    if shown is not None and not isinstance(shown, str):
        meta = shown._meta
        try:
            link = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[shown.pk])
        except NoReverseMatch:
            link = None
        return [{"title": shown, "link": link}]
    title = context.get("title")
    return [{"title": title}] if title else []
