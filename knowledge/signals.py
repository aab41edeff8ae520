"""Every knowledge write bumps the bot's knowledge version, so every worker rebuilds its index
(spaces, languages and global sentences are part of the in-memory snapshot too)."""

from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from bots.models import Bot, BotLanguage, Space, bump_knowledge_version

from . import index_files
from .models import Answer, AnswerBranch, Formulation, GlobalSentence, KnowledgeItem, MatchingGroup


@receiver([post_save, post_delete], sender=KnowledgeItem)
@receiver([post_save, post_delete], sender=MatchingGroup)
@receiver([post_save, post_delete], sender=GlobalSentence)
@receiver([post_save, post_delete], sender=Space)
@receiver([post_save, post_delete], sender=BotLanguage)
def item_changed(sender, instance, **kwargs):
    bump_knowledge_version(instance.bot_id)


@receiver([post_save, post_delete], sender=Formulation)
@receiver([post_save, post_delete], sender=Answer)
@receiver([post_save, post_delete], sender=AnswerBranch)
def part_changed(sender, instance, **kwargs):
    # Computed vectors are stored with queryset updates, which send no signal.
    bot_id = KnowledgeItem.objects.filter(pk=instance.item_id).values_list("bot_id", flat=True).first()
    bump_knowledge_version(bot_id)


@receiver(m2m_changed, sender=KnowledgeItem.complement_tags.through)
@receiver(m2m_changed, sender=KnowledgeItem.complement_items.through)
def complement_tags_changed(sender, instance, **kwargs):
    if isinstance(instance, KnowledgeItem):
        bump_knowledge_version(instance.bot_id)


@receiver(post_delete, sender=Bot)
def bot_deleted(sender, instance, **kwargs):
    """A deleted bot's stored indexes go with it (knowledge/index_files.py)."""
    index_files.forget(str(instance.uuid))
