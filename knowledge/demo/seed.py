"""Creates the demo bot (fixed UUID) with its knowledge, the demo account and its administrator.

The knowledge is knowledge/demo/demo_bot.xml, a knowledge base file (docs/knowledge-base-xml.md) with the
bot's data (its "no" matching group preference), loaded by the same streaming, atomic importer as the
import servlet. What a knowledge base file does not carry stays code here: the account, the bot itself
(its fixed UUID and name; the file names them but an import never makes a bot) and the administrator.
"""

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.models import Account, Membership, Role
from bots.models import DEMO_BOT_UUID, Bot

from ..exchange import import_knowledge_base

ADMIN_LOGIN = "admin"
BOT_UUID = DEMO_BOT_UUID
BOT_NAME = "Clara — Banque Exemple"
KNOWLEDGE_BASE = Path(__file__).with_name("demo_bot.xml")


@transaction.atomic
def seed_demo_bot(reset: bool = False) -> tuple[Bot, bool]:
    """The demo bot, created with its knowledge if missing (or rebuilt with reset). Returns (bot, created)."""
    account, _ = Account.objects.get_or_create(name="Demo")
    bot = Bot.objects.filter(uuid=BOT_UUID).first()
    if bot is not None and not reset:
        return bot, False
    if bot is not None:
        bot.delete()
    bot = Bot.objects.create(uuid=BOT_UUID, name=BOT_NAME, account=account, default_language="fr")
    # No vector job: as before the demo was a file, its vectors are computed when its index is first built.
    import_knowledge_base(bot, KNOWLEDGE_BASE, preferences=True, schedule_vectors=False)
    bot.refresh_from_db()
    return bot, True


def ensure_demo_admin() -> tuple[str, str | None]:
    """The demo account's administrator, made once. Its first password comes from DEMO_ADMIN_PASSWORD,
    else one is generated and kept in the data folder (never in the repository). A password that
    exists is never changed (its owner may have changed it). Returns (login, the password if it was
    just set, else None)."""
    User = get_user_model()
    user = User.objects.filter(username=ADMIN_LOGIN).first()
    password = None
    if user is None:
        password = os.environ.get("DEMO_ADMIN_PASSWORD", "") or secrets.token_urlsafe(12)
        if not os.environ.get("DEMO_ADMIN_PASSWORD"):
            password_file = settings.DATA_DIR / "demo-admin-password"
            settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
            password_file.write_text(password)
            password_file.chmod(0o600)
        user = User.objects.create_superuser(ADMIN_LOGIN, "admin@example.org", password)
    account = Account.objects.get(name="Demo")
    Membership.objects.update_or_create(user=user, defaults={"account": account, "role": Role.ADMINISTRATOR})
    return ADMIN_LOGIN, password
