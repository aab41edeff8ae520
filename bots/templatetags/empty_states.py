"""The template tag that puts a list's empty-state sentence (bots/empty_states.py) in the page."""

from django import template

from bots import empty_states

register = template.Library()


@register.simple_tag
def empty_state(cl) -> str:
    return empty_states.about(cl.opts)
