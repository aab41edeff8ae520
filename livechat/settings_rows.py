"""Every bot has its live-chat settings row from its creation, so the back office lists the values in force."""

from .models import LivechatSettings


def give_bot_its_settings(sender, instance, created, raw=False, **kwargs):
    """post_save of Bot: every door that creates a bot (back office, API, demo seed, benchmarks) saves it.
    A fixture being loaded (raw) brings its own rows, which a row made here would collide with."""
    if created and not raw:
        LivechatSettings.objects.get_or_create(bot=instance)
