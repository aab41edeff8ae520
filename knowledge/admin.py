"""Back office for the knowledge base: items with their formulations and answers, tags, matching
groups, global sentences and the gallery."""

import base64

from django import forms
from django.contrib import admin, messages
from django.db.models import Count
from django.utils.html import format_html
from unfold.admin import StackedInline, TabularInline

from bots.admin_scoping import BotScopedAdmin
from bots.models import Space
from dialogs.conditions import OPERATORS
from dialogs.models import Survey
from dialogs.slots import checks as slot_checks

from . import rich_answers
from .branches import validate_conditions
from .models import Answer, AnswerBranch, Formulation, GalleryImage, GlobalSentence, KnowledgeItem, MatchingGroup, Tag


class FormulationInline(TabularInline):
    model = Formulation
    extra = 1
    fields = ["language", "text", "rewordable", "position"]


class AnswerForm(forms.ModelForm):
    """An answer's rich parts are checked as the XML import checks them (knowledge/rich_answers.py)."""

    def clean(self):
        data = super().clean()
        checks = [
            ("template_data", rich_answers.check_template, ("template_name", "template_data")),
            ("url_redirect", rich_answers.check_url_redirect, ("url_redirect",)),
            ("steps", rich_answers.check_steps, ("steps",)),
        ]
        for field, check, names in checks:
            if field not in self.fields or field in self.errors:
                continue
            try:
                check(*(data.get(name) for name in names))
            except rich_answers.RichAnswerError as error:
                self.add_error(field, str(error))
        return data


class AnswerInline(StackedInline):
    model = Answer
    form = AnswerForm
    extra = 0
    fields = [
        ("language", "space"),
        "text",
        ("ask_feedback", "livechat", "livechat_competency"),
        ("template_name", "gui_action", "url_redirect"),
        "template_data",
        "sidebar",
        "steps",
        "survey",
    ]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        bot_id = getattr(request, "_knowledge_bot_id", None)
        if db_field.name == "space" and bot_id:
            kwargs["queryset"] = Space.objects.filter(bot_id=bot_id)
        if db_field.name == "survey":  # the surveys of this bot (dialogs/surveys/), shown under the answer
            kwargs["queryset"] = Survey.objects.filter(bot_id=bot_id) if bot_id else Survey.objects.none()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class AnswerBranchInline(AnswerInline):
    """Context conditions: other answers per language and space, the first whose conditions hold wins."""

    model = AnswerBranch
    form = forms.ModelForm
    fields = [("language", "space", "position"), "conditions", "text", "set_variables"]
    verbose_name = "answer branch"
    # For a language and space, the first branch by priority whose conditions all hold on the dialog's
    # variables answers instead of the answer (no text: the answer's text, with the branch's variables set).
    verbose_name_plural = "Answer branches (context conditions: the first whose conditions all hold answers)"


@admin.register(KnowledgeItem)
class KnowledgeItemAdmin(BotScopedAdmin):
    list_display = ["__str__", "question", "kind", "status_badge", "featured", "tag", "parent", "bot"]
    # Featured items are the top questions of a bot whose period has no usage yet.
    list_editable = ["featured"]
    list_filter = ["bot", "kind", "status", "tag"]
    search_fields = ["label", "formulations__text"]
    list_select_related = ["tag", "parent", "bot"]
    actions = ["publish", "disable", "back_to_draft", "feature", "unfeature"]
    inlines = [FormulationInline, AnswerInline, AnswerBranchInline]
    fieldsets = [
        (None, {"fields": ["bot", "label", ("kind", "status", "featured"), "tag"]}),
        ("Decision tree", {"fields": [("parent", "direct_access"), "position"]}),
        ("Event-triggered", {"classes": ["collapse"], "fields": ["event_rules"]}),
        (
            "Slot filling",
            {
                "classes": ["collapse"],
                "description": "A slot item: its variable, value type, allowed values (type list), question and "
                "invalid-value sentence per language. An item that needs slots: their ids in order and its "
                "introductory sentence per language.",
                "fields": [
                    ("slot_variable", "slot_type"),
                    "slot_values",
                    "slot_question",
                    "slot_invalid",
                    "slots",
                    "slot_intro",
                ],
            },
        ),
        (
            "Complementary answer",
            {
                "classes": ["collapse"],
                "fields": [
                    "complement_position",
                    ("complement_frequency", "complement_n"),
                    "complement_all",
                    "complement_tags",
                    "complement_items",
                    "complement_conditions",
                ],
            },
        ),
    ]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name in slot_checks.FIELDS and formfield is not None:
            slot_checks.FIELDS[db_field.name](formfield, getattr(request, "_knowledge_bot_id", None))
        if db_field.name == "complement_conditions" and formfield is not None:
            # The same conditions as the answer branches': a known operator on a named variable.
            formfield.validators.append(validate_conditions)
            formfield.help_text = (
                'All must hold on the dialog\'s variables: [{"variable": "client_type", "operator": "is", '
                '"value": "pro"}]; operators: ' + ", ".join(OPERATORS) + "."
            )
        return formfield

    def get_form(self, request, obj=None, **kwargs):
        # The inlines limit their choices (spaces) to this item's bot.
        request._knowledge_bot_id = obj.bot_id if obj else None
        return super().get_form(request, obj, **kwargs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        bot_id = getattr(request, "_knowledge_bot_id", None)
        if bot_id and db_field.name == "tag":
            kwargs["queryset"] = Tag.objects.filter(bot_id=bot_id)
        if bot_id and db_field.name == "parent":
            kwargs["queryset"] = KnowledgeItem.objects.filter(bot_id=bot_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        bot_id = getattr(request, "_knowledge_bot_id", None)
        if bot_id and db_field.name == "complement_tags":
            kwargs["queryset"] = Tag.objects.filter(bot_id=bot_id)
        if bot_id and db_field.name == "complement_items":
            kwargs["queryset"] = KnowledgeItem.objects.filter(bot_id=bot_id).exclude(
                kind__in=[KnowledgeItem.Kind.COMPLEMENTARY, KnowledgeItem.Kind.PREDEFINED]
            )
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description="Question")
    def question(self, item):
        first = item.formulations.first()
        return first.text if first else "—"

    @admin.display(description="Status", ordering="status")
    def status_badge(self, item):
        colours = {"published": "#1a7f37", "draft": "#9a6700", "disabled": "#6e7781"}
        return format_html('<b style="color:{}">{}</b>', colours.get(item.status, "#000"), item.get_status_display())

    def _set(self, request, queryset, field: str, value, done: str):
        count = 0
        for item in queryset:  # one save each, so every worker sees the change
            setattr(item, field, value)
            item.save(update_fields=[field, "updated_at"])
            count += 1
        self.message_user(request, f"{count} item(s) {done}.", messages.SUCCESS)

    def _set_status(self, request, queryset, status):
        self._set(request, queryset, "status", status, f"now {status}")

    @admin.action(description="Publish the selected items")
    def publish(self, request, queryset):
        self._set_status(request, queryset, KnowledgeItem.Status.PUBLISHED)

    @admin.action(description="Disable the selected items")
    def disable(self, request, queryset):
        self._set_status(request, queryset, KnowledgeItem.Status.DISABLED)

    @admin.action(description="Put the selected items back to draft")
    def back_to_draft(self, request, queryset):
        self._set_status(request, queryset, KnowledgeItem.Status.DRAFT)

    @admin.action(description="Feature the selected items among the top questions")
    def feature(self, request, queryset):
        self._set(request, queryset, "featured", True, "featured among the top questions")

    @admin.action(description="Stop featuring the selected items")
    def unfeature(self, request, queryset):
        self._set(request, queryset, "featured", False, "no longer featured")


@admin.register(Tag)
class TagAdmin(BotScopedAdmin):
    list_display = ["name", "parent", "bot", "item_count", "id"]
    list_filter = ["bot"]
    search_fields = ["name"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(item_count=Count("items"))

    @admin.display(description="Items", ordering="item_count")
    def item_count(self, tag):
        return tag.item_count


@admin.register(MatchingGroup)
class MatchingGroupAdmin(BotScopedAdmin):
    list_display = ["name", "category", "member_list", "bot", "uuid"]
    list_filter = ["bot", "category"]
    search_fields = ["name", "members"]
    readonly_fields = ["uuid"]

    @admin.display(description="Members")
    def member_list(self, group):
        return ", ".join(group.members[:8]) + (" …" if len(group.members) > 8 else "")


@admin.register(GlobalSentence)
class GlobalSentenceAdmin(BotScopedAdmin):
    list_display = ["kind", "language", "text", "bot"]
    list_filter = ["bot", "language", "kind"]


@admin.register(GalleryImage)
class GalleryImageAdmin(BotScopedAdmin):
    list_display = ["name", "media_type", "size", "bot", "created_at"]
    list_filter = ["bot", "media_type"]
    search_fields = ["name"]
    readonly_fields = ["preview", "created_at"]
    exclude = ["content"]

    @admin.display(description="Size (bytes)")
    def size(self, image):
        return len(image.content or b"")

    @admin.display(description="Preview")
    def preview(self, image):
        if not image.content or not image.media_type.startswith("image/"):
            return "—"
        data = base64.b64encode(bytes(image.content)).decode()
        return format_html('<img src="data:{};base64,{}" style="max-width:320px">', image.media_type, data)

# The learning page (misunderstood questions, ignored groups) lives with its code and registers itself.
from .learning import admin as learning_admin  # noqa: E402, F401
