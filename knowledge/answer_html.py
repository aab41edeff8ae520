"""Answer HTML made safe to show outside the chatbox (the printable transcript): the operators' console's
allowlist (static/livechat/console.js `sanitize`), applied on the server with Ammonia (nh3)."""

import re

import nh3

# The same tags and attributes as the console's ALLOWED_TAGS / ALLOWED_ATTRS.
TAGS = {
    "a", "b", "strong", "i", "em", "u", "s", "strike", "br", "p", "div", "span", "ul", "ol", "li", "blockquote",
    "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "img", "hr", "small", "sub", "sup", "mark", "table",
    "thead", "tbody", "tr", "td", "th", "dl", "dt", "dd",
}  # fmt: skip
ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "ol": {"start"},
}
# Dropped with everything inside them (the console drops these elements whole too).
DROPPED = {"script", "style", "iframe", "object", "embed", "applet", "frame", "frameset", "template", "noscript",
           "textarea", "select", "option", "svg", "math", "audio", "video", "canvas", "title", "head"}  # fmt: skip
INLINE_IMAGE = re.compile(r"^data:image/(?:png|jpe?g|gif|webp);", re.IGNORECASE)
LINK_SCHEMES = {"http", "https", "mailto", "tel"}


def _attribute(tag: str, name: str, value: str) -> str | None:
    """Links: http, https, mailto, tel or relative (nh3 checks the scheme); images may also be inline
    pictures (data:image/…), links never data:."""
    if name not in ("href", "src"):
        return value
    compact = re.sub(r"[\x00-\x20\x7f-\x9f]", "", value)
    if not compact.lower().startswith("data:"):
        return value
    return compact if name == "src" and INLINE_IMAGE.match(compact) else None


def clean(html: str) -> str:
    """Answer HTML with only the allowlisted tags and attributes: no script, style, frame, event handler or
    javascript: URL; links open in a new tab without the referrer."""
    return nh3.clean(
        html or "",
        tags=TAGS,
        attributes=ATTRIBUTES,
        clean_content_tags=DROPPED,
        url_schemes=LINK_SCHEMES | {"data"},
        attribute_filter=_attribute,
        link_rel="noopener noreferrer nofollow",
        set_tag_attribute_values={"a": {"target": "_blank"}},
        strip_comments=True,
    )
