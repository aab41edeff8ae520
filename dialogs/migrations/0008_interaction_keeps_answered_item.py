"""Interactions keep the item they answered (its id and title) when the item is deleted or replaced;
the rows stored before get them from the item they still refer to, in two set-wise statements."""

from django.db import migrations, models
from django.db.models import F, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce, NullIf


def keep_answered_items(apps, schema_editor):
    Interaction = apps.get_model("dialogs", "Interaction")
    KnowledgeItem = apps.get_model("knowledge", "KnowledgeItem")
    Formulation = apps.get_model("knowledge", "Formulation")
    linked = Interaction.objects.using(schema_editor.connection.alias).filter(knowledge_item__isnull=False)
    label = KnowledgeItem.objects.filter(pk=OuterRef("knowledge_item_id")).values("label")[:1]
    first = Formulation.objects.filter(item_id=OuterRef("knowledge_item_id")).order_by("position", "id")
    in_language = first.filter(language=OuterRef("language")).values("text")[:1]
    # The title as analytics names an item: its label, else its first formulation (in the dialog's language).
    title = Coalesce(
        NullIf(Subquery(label), Value("")), Subquery(in_language), Subquery(first.values("text")[:1]), Value("")
    )
    linked.update(answered_id=F("knowledge_item_id"), answered_title=title)


class Migration(migrations.Migration):
    dependencies = [
        ("dialogs", "0007_alter_clienterror_options_alter_dialog_options_and_more"),
        ("knowledge", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="interaction",
            name="answered_id",
            field=models.BigIntegerField(blank=True, null=True, verbose_name="answered item id"),
        ),
        migrations.AddField(
            model_name="interaction",
            name="answered_title",
            field=models.CharField(blank=True, max_length=1000, verbose_name="answered item title"),
        ),
        migrations.RunPython(keep_answered_items, migrations.RunPython.noop, elidable=True),
    ]
