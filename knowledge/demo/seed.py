"""Creates the demo bot (fixed UUID) with its knowledge, the demo account and its administrator."""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.models import Account, Membership, Role
from bots.models import Bot, BotLanguage, Space, bump_knowledge_version
from dialogs.slots.demo import seed_demo_slots
from dialogs.surveys.demo import seed_demo_surveys

from ..models import Answer, Formulation, GlobalSentence, KnowledgeItem, MatchingGroup, Tag
from . import content
from .branches import seed_branches

ADMIN_LOGIN = "admin"


@transaction.atomic
def seed_demo_bot(reset: bool = False) -> tuple[Bot, bool]:
    """The demo bot, created with its knowledge if missing (or rebuilt with reset). Returns (bot, created)."""
    account, _ = Account.objects.get_or_create(name="Demo")
    bot = Bot.objects.filter(uuid=content.BOT_UUID).first()
    if bot is not None and not reset:
        return bot, False
    if bot is not None:
        bot.delete()
    bot = Bot.objects.create(uuid=content.BOT_UUID, name=content.BOT_NAME, account=account, default_language="fr")
    for code in ("fr", "en"):
        BotLanguage.objects.create(bot=bot, code=code)
    spaces = {
        name: Space.objects.create(bot=bot, name=name, is_default=(index == 0))
        for index, name in enumerate(content.SPACES)
    }
    for category, name, members in content.GROUPS:
        MatchingGroup.objects.create(bot=bot, name=name, category=category, members=members)
    for language, text in content.WELCOME.items():
        GlobalSentence.objects.create(bot=bot, language=language, kind=GlobalSentence.Kind.WELCOME, text=text)

    tags: dict[str, Tag] = {}
    for position, spec in enumerate(content.ITEMS):
        _create_item(bot, spec, spaces, tags, position)

    reminder = KnowledgeItem.objects.create(
        bot=bot,
        kind=KnowledgeItem.Kind.COMPLEMENTARY,
        status=KnowledgeItem.Status.PUBLISHED,
        label="Card security reminder",
        complement_position=KnowledgeItem.Position.AFTER,
        complement_frequency=KnowledgeItem.Frequency.ONCE_PER_DIALOG,
    )
    reminder.complement_tags.add(tags["Cartes"])
    for language, text in content.CARD_REMINDER.items():
        Answer.objects.create(item=reminder, language=language, space=spaces["Defaut"], text=text)
    for position, spec in enumerate(content.PREDEFINED):
        canned = KnowledgeItem.objects.create(
            bot=bot,
            kind=KnowledgeItem.Kind.PREDEFINED,
            status=KnowledgeItem.Status.PUBLISHED,
            label=spec["label"],
            tag=tags.get(spec.get("tag", "")),  # its theme in the operators' console
            position=position,
        )
        for language in ("fr", "en"):
            Answer.objects.create(item=canned, language=language, space=spaces["Defaut"], text=spec[language])
    seed_demo_surveys(bot, content.SURVEYS, content.ITEMS)
    seed_demo_slots(bot, content.SLOT_FILLING, content.NO_GROUP)
    bump_knowledge_version(bot.pk)
    return bot, True


def _create_item(bot, spec, spaces, tags, position, parent=None):
    tag = None
    if spec.get("tag"):
        tag = tags.get(spec["tag"]) or Tag.objects.create(bot=bot, name=spec["tag"])
        tags[spec["tag"]] = tag
    item = KnowledgeItem.objects.create(
        bot=bot,
        kind=KnowledgeItem.Kind.QUESTION,
        status=spec.get("status", KnowledgeItem.Status.PUBLISHED),
        label=spec["label"],
        featured=spec.get("featured", False),
        tag=tag or (parent.tag if parent else None),
        parent=parent,
        position=position,
    )
    # Bulk writes send no signal: the knowledge version is bumped once, at the end of the seed.
    formulations, answers = [], []
    for language in ("fr", "en"):
        texts, answer = spec[language]
        formulations += [
            Formulation(
                item=item, language=language, text=text.lstrip("~"), rewordable=not text.startswith("~"), position=index
            )
            for index, text in enumerate(texts)
        ]
        feedback = spec.get("feedback", False)
        livechat = spec.get("livechat", False)
        if answer is not None:  # None: answered only in the spaces below
            answers.append(
                Answer(
                    item=item,
                    language=language,
                    space=spaces["Defaut"],
                    text=answer,
                    ask_feedback=feedback,
                    livechat=livechat,
                    # template, sidebar, GUI action, URL redirection, steps
                    **spec.get("rich", {}).get(language, {}),
                )
            )
        answers += [
            Answer(
                item=item,
                language=language,
                space=spaces[name],
                text=texts_by_language[language],
                ask_feedback=feedback,
            )
            for name, texts_by_language in spec.get("spaces", {}).items()
        ]
    Formulation.objects.bulk_create(formulations)
    Answer.objects.bulk_create(answers)
    seed_branches(item, spec, spaces["Defaut"])
    for child_position, child in enumerate(spec.get("children", [])):
        _create_item(bot, child, spaces, tags, child_position, parent=item)
    return item


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
