"""Every existing bot gets its live-chat settings row (new bots get theirs when created: livechat/settings_rows.py)."""

from django.db import migrations


def create_rows(apps, schema_editor):
    Bot = apps.get_model("bots", "Bot")
    LivechatSettings = apps.get_model("livechat", "LivechatSettings")
    missing = Bot.objects.filter(livechat_settings__isnull=True).values_list("pk", flat=True)
    LivechatSettings.objects.bulk_create([LivechatSettings(bot_id=pk) for pk in missing])


class Migration(migrations.Migration):
    dependencies = [
        ("livechat", "0005_visitor_presence_opening_hours_missed"),
    ]

    operations = [migrations.RunPython(create_rows, migrations.RunPython.noop)]
