"""Pages people open in a browser: the home page and the demo chat page with our embeddable chatbox."""

from django.conf import settings
from django.shortcuts import render
from django.urls import path

from .models import Bot

DEMO_BOT_UUID = "d3b0d3b0-0000-4000-8000-000000000001"


def home(request):
    bot = Bot.objects.filter(uuid=DEMO_BOT_UUID).first() or Bot.objects.first()
    return render(request, "home.html", {"bot": bot, "debug": settings.DEBUG})


def demo_chat(request):
    wanted = request.GET.get("bot") or DEMO_BOT_UUID
    bot = Bot.objects.filter(uuid=wanted).first() if _is_uuid(wanted) else None
    return render(request, "demo/chat.html", {"bot": bot or Bot.objects.first(), "bot_uuid_requested": wanted})


def _is_uuid(value: str) -> bool:
    import uuid

    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


urlpatterns = [
    path("", home, name="home"),
    path("demo/", demo_chat, name="demo-chat"),
]
