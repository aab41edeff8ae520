"""Pages people open in a browser: the home page and the demo chat page with our embeddable chatbox."""

import uuid

from django.conf import settings
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import path

from .models import DEMO_BOT_UUID, Bot


def home(request):
    bot = Bot.objects.filter(uuid=DEMO_BOT_UUID).first() or Bot.objects.first()
    return render(request, "home.html", {"bot": bot, "debug": settings.DEBUG})


def demo_chat(request):
    """The demo bank site with our chatbox embedded by one script tag; ?bot=<uuid> and ?space=<name> choose."""
    requested = request.GET.get("bot", "").strip()
    wanted = requested or DEMO_BOT_UUID
    bot = Bot.objects.filter(uuid=wanted).first() if _is_uuid(wanted) else None
    # A bot asked for by name in the URL that does not exist is said so, not silently replaced.
    bot_not_found = bool(requested) and bot is None
    bot = bot or Bot.objects.first()
    context = {"bot": bot, "bot_uuid_requested": wanted, "bot_not_found": bot_not_found}
    if bot is not None:
        spaces = list(bot.spaces.order_by("-is_default", "name").values_list("name", flat=True))
        space = next((name for name in spaces if name.lower() == request.GET.get("space", "").lower()), None)
        server = request.build_absolute_uri("/").rstrip("/")
        context.update(
            {
                "server": server,
                "script_url": server + static("chatbox/chatbox.js"),
                "assistant_name": bot.name.split(" — ")[0],
                "languages": bot.language_codes(),
                "spaces": spaces,
                "space": space or (spaces[0] if spaces else "Defaut"),
            }
        )
    return render(request, "demo/chat.html", context)


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


urlpatterns = [
    path("", home, name="home"),
    path("demo/", demo_chat, name="demo-chat"),
]
