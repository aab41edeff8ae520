"""The Rasa mirror's status: when each language was last exported, and whether the training data the
knowledge gives now differs from that file.

Every knowledge write bumps the bot's knowledge version (knowledge/signals.py), the same counter the
matching caches follow: while it is the version of the export, nothing changed. When it moved, the file
is built again (without storing anything) and compared by content hash, so an edit that leaves the
training data as it was (an answer, a global sentence) is no change for the mirror.
"""

from django.utils import timezone

from bots.models import Bot

from .models import RasaMirror
from .rasa_export import NluFile, nlu_file


def record_export(bot, language: str, exported: NluFile, version: int, user) -> RasaMirror:
    mirror, _ = RasaMirror.objects.update_or_create(
        bot=bot,
        language=language,
        defaults={
            "exported_at": timezone.now(),
            "exported_by": getattr(user, "username", "")[:150],
            "knowledge_version": version,
            "content_hash": exported.content_hash,
            "intents": exported.intents,
            "examples": exported.examples,
            "synonyms": exported.synonyms,
        },
    )
    return mirror


def current_version(bot) -> int:
    return Bot.objects.filter(pk=bot.pk).values_list("knowledge_version", flat=True).first() or 0


def language_status(bot, language: str, mirror: RasaMirror | None, version: int) -> dict:
    if mirror is None:
        return {"language": language, "exported": False, "exportedAt": None, "changedSinceExport": None}
    if mirror.knowledge_version == version:
        changed = False
    else:
        changed = nlu_file(bot, language, keep_names=False).content_hash != mirror.content_hash
    return {
        "language": language,
        "exported": True,
        "exportedAt": mirror.exported_at.isoformat(),
        "exportedBy": mirror.exported_by,
        "exportedKnowledgeVersion": mirror.knowledge_version,
        "changedSinceExport": changed,
        "intents": mirror.intents,
        "examples": mirror.examples,
        "synonyms": mirror.synonyms,
    }


def mirror_status(bot, languages: list[str]) -> dict:
    version = current_version(bot)
    mirrors = {mirror.language: mirror for mirror in RasaMirror.objects.filter(bot=bot, language__in=languages)}
    return {
        "botUUID": str(bot.uuid),
        "format": "rasa-nlu-yaml",
        "knowledgeVersion": version,
        "languages": [language_status(bot, language, mirrors.get(language), version) for language in languages],
    }
