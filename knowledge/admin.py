"""Back office for the knowledge base: items with their formulations and answers, tags, matching
groups, global sentences and the gallery."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.main import ORDER_VAR
from django.db import models, transaction
from django.db.models import Case, Count, F, IntegerField, OuterRef, Subquery, Value, When
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from unfold.admin import StackedInline, TabularInline
from unfold.views import ChangeList

from bots.admin_scoping import BotScopedAdmin, bots_of
from bots.models import Space

from . import rich_answers
from .backoffice import field_checks as slot_checks
from .backoffice import gallery
from .backoffice.answer_editor import AnswerEditor, gallery_choices, saved_answer
from .backoffice.conflicts import WINS, conflicts
from .backoffice.fields import FittingTextarea, MemberListField, PrettyJSONField
from .backoffice.filters import LanguageFilter, SpaceFilter
from .backoffice.languages import FormulationFormSet, ItemPartsFormSet, check_language, language_field, sole_bot_id
from .backoffice.plain_column import plain_cell
from .backoffice.preview import preview_html, preview_view
from .backoffice.tags import tree_order
from .branches import validate_conditions
from .conditions import OPERATORS
from .models import Answer, AnswerBranch, Formulation, GalleryImage, GlobalSentence, KnowledgeItem, MatchingGroup, Tag


def _bot_id(request):
    """The bot of the item being edited (set by the item's get_form), for the inlines' choices."""
    return getattr(request, "_knowledge_bot_id", None)


class ItemPartInline:
    """An item's formulations, answers or branches: languages and spaces from the item's bot, friendly JSON."""

    formset = ItemPartsFormSet
    tab = True

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "language":
            return language_field(request, _bot_id(request))
        if isinstance(db_field, models.JSONField):
            kwargs.update(form_class=PrettyJSONField, widget=FittingTextarea(min_rows=1))
        if db_field.name == "text" and isinstance(db_field, models.TextField):
            kwargs["widget"] = FittingTextarea(min_rows=3)
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        bot_id = _bot_id(request)
        if db_field.name == "space":
            # On an add page, the spaces of the user's bots; the formset holds each row to the chosen bot's.
            kwargs["queryset"] = (
                Space.objects.filter(bot_id=bot_id) if bot_id else Space.objects.filter(bot__in=bots_of(request.user))
            )
            # A new answer goes to the bot's default space unless another is chosen.
            default_space = Space.objects.filter(bot_id=bot_id, is_default=True)
            kwargs["initial"] = default_space.values_list("pk", flat=True).first()
        if db_field.name == "survey":  # the surveys of this bot (dialogs/surveys/), shown under the answer
            surveys = db_field.related_model.objects  # dialogs' Survey, read without importing dialogs
            kwargs["queryset"] = surveys.filter(bot_id=bot_id) if bot_id else surveys.none()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def answer_text_field(self, db_field, request, **kwargs):
        """The answer editor, with the item's bot's gallery to pick images from."""
        kwargs["widget"] = AnswerEditor(gallery=gallery_choices(request, _bot_id(request)))
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description=_("Preview"))
    def preview(self, part):
        url = reverse("admin:knowledge_knowledgeitem_answer_preview")
        return preview_html(part.text if part and part.pk else "", url)


class FormulationInline(ItemPartInline, TabularInline):
    model = Formulation
    formset = FormulationFormSet
    extra = 1
    fields = ["language", "text", "rewordable", "position"]
    verbose_name_plural = _("Formulations")
    hide_title = True  # a row's title would repeat its text
    show_count = True
    # Rows are dragged into order; the position number stays out of sight (unfold's sortable inline).
    ordering_field = "position"
    hide_ordering_field = True

    def get_queryset(self, request):
        # The bot's default language first, then the others, each in its own order.
        first = Case(
            When(language=F("item__bot__default_language"), then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
        return super().get_queryset(request).order_by(first, "language", "position", "id")

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "text":
            formfield.widget.attrs["style"] = "min-width: 34rem"
        if db_field.name == "position":  # a new row goes last (FormulationFormSet)
            formfield.required = False
        return formfield


class AnswerTextForm(forms.ModelForm):
    """An answer's or a branch's text as the editor posts it, saved through the platform's sanitiser."""

    def clean_text(self):
        return saved_answer(self.cleaned_data.get("text") or "")


class AnswerForm(AnswerTextForm):
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


class AnswerInline(ItemPartInline, StackedInline):
    model = Answer
    form = AnswerForm
    extra = 0
    show_count = True
    readonly_fields = ["preview"]
    verbose_name_plural = _("Answers")
    fieldsets = [
        (None, {"fields": [("language", "space"), "text", "preview", ("ask_feedback", "livechat")]}),
        (
            _("Rich answer, live chat and survey"),
            {
                "classes": ["collapse"],
                "fields": [
                    ("template_name", "gui_action", "url_redirect"),
                    "template_data",
                    "sidebar",
                    "steps",
                    ("survey", "livechat_competency"),
                ],
            },
        ),
    ]

    class Media:
        js = ["knowledge/backoffice/answer_preview.js"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "text":
            return self.answer_text_field(db_field, request, **kwargs)
        return super().formfield_for_dbfield(db_field, request, **kwargs)


class AnswerBranchInline(ItemPartInline, StackedInline):
    """Context conditions: other answers per language and space, the first whose conditions hold wins."""

    model = AnswerBranch
    form = AnswerTextForm
    extra = 0
    show_count = True
    readonly_fields = ["preview"]
    fields = [("language", "space"), "conditions", "text", "preview", ("set_variables", "position")]
    verbose_name = _("answer branch")
    verbose_name_plural = _("Answer branches")
    # For a language and space, the first branch by priority whose conditions all hold on the dialog's
    # variables answers instead of the answer (no text: the answer's text, with the branch's variables set).
    template_before = "knowledge/backoffice/branches_help.html"

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "text":
            return self.answer_text_field(db_field, request, **kwargs)
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "conditions" and formfield is not None:
            formfield.help_text = _conditions_help()
        return formfield


def _conditions_help() -> str:
    return gettext(
        'All must hold on the dialog\'s variables: [{"variable": "client_type", "operator": "is", "value": "pro"}]; '
        "operators: %(operators)s."
    ) % {"operators": ", ".join(OPERATORS)}


@admin.register(KnowledgeItem)
class KnowledgeItemAdmin(BotScopedAdmin):
    list_display = ["__str__", "question", "kind", "status_badge", "featured", "tag", "bot"]
    # Featured items are the top questions of a bot whose period has no usage yet.
    list_editable = ["featured"]
    # Related-only: the filters list the tags and bots of the items this user sees, never another account's.
    list_filter = [
        "status",
        ("tag", admin.RelatedOnlyFieldListFilter),
        SpaceFilter,
        LanguageFilter,
        "kind",
        ("bot", admin.RelatedOnlyFieldListFilter),
    ]
    search_fields = ["label", "formulations__text", "answers__text"]
    search_help_text = _("Label, formulations or answers")
    list_select_related = ["tag", "parent", "bot"]
    list_per_page = 50
    actions = ["publish", "disable", "back_to_draft", "feature", "unfeature"]
    inlines = [FormulationInline, AnswerInline, AnswerBranchInline]

    class Media:
        js = ["knowledge/backoffice/tab_counts.js"]  # the tabs' counters follow the rows being filled

    fieldsets = [
        (None, {"fields": [("bot", "label"), ("kind", "status"), ("tag", "featured")]}),
        (_("Decision tree"), {"classes": ["collapse"], "fields": [("parent", "direct_access"), "position"]}),
        (_("Event-triggered"), {"classes": ["collapse"], "fields": ["event_rules"]}),
        (
            _("Slot filling"),
            {
                "classes": ["collapse"],
                "description": _(
                    "A slot item: its variable, value type, allowed values (type list), question and "
                    "invalid-value sentence per language. An item that needs slots: their ids in order and its "
                    "introductory sentence per language."
                ),
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
            _("Complementary answer"),
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

    def get_urls(self):
        preview = path(
            "answer-preview/",
            self.admin_site.admin_view(preview_view(self)),
            name="knowledge_knowledgeitem_answer_preview",
        )
        return [preview, *super().get_urls()]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.JSONField):
            kwargs.update(form_class=PrettyJSONField, widget=FittingTextarea(min_rows=1))
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name in slot_checks.FIELDS and formfield is not None:
            slot_checks.FIELDS[db_field.name](formfield, _bot_id(request))
        if db_field.name == "complement_conditions" and formfield is not None:
            # The same conditions as the answer branches': a known operator on a named variable.
            formfield.validators.append(validate_conditions)
            formfield.help_text = _conditions_help()
        if db_field.name == "event_rules" and formfield is not None:
            formfield.help_text = _(
                'Rules the chatbox checks before pushing this item: [{"type": "…", "operator": "…", "value": "…"}].'
            )
        return formfield

    def get_form(self, request, obj=None, **kwargs):
        # The inlines limit their choices (languages, spaces) to this item's bot, or on an add page to the
        # user's only bot.
        request._knowledge_bot_id = obj.bot_id if obj else sole_bot_id(request.user)
        return super().get_form(request, obj, **kwargs)

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        if "bot" not in initial and sole_bot_id(request.user):  # nothing to choose: the bot is set
            initial["bot"] = sole_bot_id(request.user)
        return initial

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        bot_id = _bot_id(request)
        if db_field.name == "tag":
            kwargs["queryset"] = (
                Tag.objects.filter(bot_id=bot_id) if bot_id else Tag.objects.filter(bot__in=bots_of(request.user))
            )
        if bot_id and db_field.name == "parent":
            kwargs["queryset"] = KnowledgeItem.objects.filter(bot_id=bot_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        bot_id = _bot_id(request)
        if bot_id and db_field.name == "complement_tags":
            kwargs["queryset"] = Tag.objects.filter(bot_id=bot_id)
        if bot_id and db_field.name == "complement_items":
            kwargs["queryset"] = KnowledgeItem.objects.filter(bot_id=bot_id).exclude(
                kind__in=[KnowledgeItem.Kind.COMPLEMENTARY, KnowledgeItem.Kind.PREDEFINED]
            )
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        item = form.instance
        saved = []
        for formset in formsets:
            if formset.model is not Formulation:
                continue
            changed = [obj for obj, fields in formset.changed_objects if {"text", "language"} & set(fields)]
            saved += [(f.pk, f.language, f.text) for f in [*formset.new_objects, *changed]]
        if saved:
            # Matched once committed: the chat's own snapshot of the bot, with this edit in it.
            transaction.on_commit(lambda: self._warn_conflicts(request, item, saved))

    def _warn_conflicts(self, request, item, saved):
        items = {}
        for conflict in conflicts(item.bot_id, item.pk, saved):
            other = items.get(conflict.other_item_id) or KnowledgeItem.objects.get(pk=conflict.other_item_id)
            items[other.pk] = other
            if conflict.kind == WINS:
                text = _(
                    "The bot matches “{text}” ({language}) better with another item: "
                    '<a href="{url}" class="font-semibold underline">{other}</a> '
                    "(score {score} against {own} for this item, through its formulation “{formulation}”). "
                    "A visitor asking this gets that item's answer: reword it, or review the other item."
                )
            else:
                text = _(
                    "Another item already answers “{text}” ({language}): "
                    '<a href="{url}" class="font-semibold underline">{other}</a> '
                    "(score {score}, through its formulation “{formulation}”). "
                    "Visitors may get either answer: keep the formulation in one item only."
                )
            messages.warning(
                request,
                format_html(
                    text,
                    text=conflict.text,
                    language=conflict.language,
                    url=reverse("admin:knowledge_knowledgeitem_change", args=[other.pk]),
                    other=str(other),
                    score=f"{conflict.other_score:.2f}",
                    own=f"{conflict.own_score:.2f}",
                    formulation=conflict.other_formulation,
                ),
            )

    def get_queryset(self, request):
        # The list's question column in the same query (one query per row before).
        first = Formulation.objects.filter(item=OuterRef("pk")).order_by("position", "id").values("text")[:1]
        return super().get_queryset(request).annotate(first_question=Subquery(first))

    @admin.display(description=_("Question"))
    def question(self, item):
        return getattr(item, "first_question", None) or "—"

    @admin.display(description=_("Status"), ordering="status")
    def status_badge(self, item):
        colours = {
            "published": "bg-green-100 text-green-700 dark:bg-green-500/20 dark:text-green-400",
            "draft": "bg-orange-100 text-orange-700 dark:bg-orange-500/20 dark:text-orange-400",
            "disabled": "bg-base-100 text-base-700 dark:bg-base-500/20 dark:text-base-200",
        }
        return format_html(
            '<span class="inline-block font-semibold leading-normal px-2 py-1 rounded-default text-xxs uppercase '
            'whitespace-nowrap {}" data-status="{}">{}</span>',
            colours.get(item.status, ""),
            item.status,
            item.get_status_display(),
        )

    def _set(self, request, queryset, field: str, value, done) -> None:
        count = 0
        for item in queryset:  # one save each, so every worker sees the change
            setattr(item, field, value)
            item.save(update_fields=[field, "updated_at"])
            count += 1
        self.message_user(request, done(count) % {"count": count}, messages.SUCCESS)

    @admin.action(description=_("Publish the selected items"), permissions=["change"])
    def publish(self, request, queryset):
        self._set(
            request, queryset, "status", KnowledgeItem.Status.PUBLISHED,
            lambda n: ngettext("%(count)d item published: the chat answers with it now.",
                               "%(count)d items published: the chat answers with them now.", n),
        )  # fmt: skip

    @admin.action(description=_("Disable the selected items"), permissions=["change"])
    def disable(self, request, queryset):
        self._set(
            request, queryset, "status", KnowledgeItem.Status.DISABLED,
            lambda n: ngettext("%(count)d item disabled: the chat no longer uses it, even in tests.",
                               "%(count)d items disabled: the chat no longer uses them, even in tests.", n),
        )  # fmt: skip

    @admin.action(description=_("Put the selected items back to draft"), permissions=["change"])
    def back_to_draft(self, request, queryset):
        self._set(
            request, queryset, "status", KnowledgeItem.Status.DRAFT,
            lambda n: ngettext("%(count)d item back to draft: only the test bot uses it.",
                               "%(count)d items back to draft: only the test bot uses them.", n),
        )  # fmt: skip

    @admin.action(description=_("Feature the selected items among the top questions"), permissions=["change"])
    def feature(self, request, queryset):
        self._set(
            request, queryset, "featured", True,
            lambda n: ngettext("%(count)d item featured among the top questions.",
                               "%(count)d items featured among the top questions.", n),
        )  # fmt: skip

    @admin.action(description=_("Stop featuring the selected items"), permissions=["change"])
    def unfeature(self, request, queryset):
        self._set(
            request, queryset, "featured", False,
            lambda n: ngettext("%(count)d item no longer featured.", "%(count)d items no longer featured.", n),
        )  # fmt: skip


class TagTreeChangeList(ChangeList):
    """Parents before their children unless a column was clicked (get_queryset annotates the position)."""

    def get_ordering(self, request, queryset):
        if ORDER_VAR in self.params:
            return super().get_ordering(request, queryset)
        return ["tree_position", "pk"]


@admin.register(Tag)
class TagAdmin(BotScopedAdmin):
    """Tags as a tree: each parent followed by its children, indented."""

    list_display = ["tree_name", "item_count", "bot"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name"]
    fields = ["bot", "name", "parent"]

    def get_queryset(self, request):
        queryset = super().get_queryset(request).annotate(item_count=Count("items"))
        order, depth = tree_order(queryset.values_list("pk", "parent_id", "name", "bot_id"))
        if not order:
            return queryset.annotate(tree_position=Value(0), tree_depth=Value(0))
        return queryset.annotate(
            tree_position=Case(*[When(pk=pk, then=Value(i)) for pk, i in order.items()], output_field=IntegerField()),
            tree_depth=Case(*[When(pk=pk, then=Value(d)) for pk, d in depth.items()], output_field=IntegerField()),
        )

    def get_changelist(self, request, **kwargs):
        return TagTreeChangeList

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "parent":
            kwargs["queryset"] = Tag.objects.filter(bot__in=bots_of(request.user))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        return type("TagForm", (form,), {"clean": _clean_tag})

    @admin.display(description=_("Tag"), ordering="tree_position")
    def tree_name(self, tag):
        depth = getattr(tag, "tree_depth", 0)
        return format_html(
            '<span style="padding-left:{}rem" data-depth="{}">{}{}</span>',
            1.5 * depth,
            depth,
            "└ " if depth else "",
            tag.name,
        )

    @admin.display(description=_("Items"), ordering="item_count")
    def item_count(self, tag):
        return tag.item_count


def _clean_tag(form):
    data = forms.ModelForm.clean(form)
    parent, bot = data.get("parent"), data.get("bot")
    if parent is not None and bot is not None and parent.bot_id != bot.pk:
        form.add_error("parent", gettext("The parent tag belongs to another bot."))
    if parent is not None and form.instance.pk:
        seen, tag = set(), parent
        while tag is not None and tag.pk not in seen:
            if tag.pk == form.instance.pk:
                form.add_error("parent", gettext("A tag cannot be its own ancestor."))
                break
            seen.add(tag.pk)
            tag = tag.parent
    return data


@admin.register(MatchingGroup)
class MatchingGroupAdmin(BotScopedAdmin):
    list_display = ["name", "category", "member_list", "bot"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter), "category"]
    search_fields = ["name", "members"]
    readonly_fields = ["uuid"]
    fields = [("name", "category"), "bot", "members", "uuid"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "members":
            return MemberListField(label=_("Members"))
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description=_("Members"))
    def member_list(self, group):
        return ", ".join(group.members[:8]) + (" …" if len(group.members) > 8 else "")


class GlobalSentenceForm(forms.ModelForm):
    def clean(self):
        data = super().clean()
        check_language(self, data.get("bot"))
        return data


@admin.register(GlobalSentence)
class GlobalSentenceAdmin(BotScopedAdmin):
    form = GlobalSentenceForm
    list_display = ["kind", "language", "text_shown", "bot"]
    list_filter = ["kind", "language", ("bot", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["text"]
    fields = [("bot", "language", "kind"), "text"]

    @admin.display(description=_("Text"), ordering="text")
    def text_shown(self, sentence):
        return plain_cell(sentence.text)

    def get_form(self, request, obj=None, **kwargs):
        request._knowledge_bot_id = obj.bot_id if obj else None
        return super().get_form(request, obj, **kwargs)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "language":
            return language_field(request, _bot_id(request))
        return super().formfield_for_dbfield(db_field, request, **kwargs)


admin.site.register(GalleryImage, gallery.GalleryImageAdmin)

# A page that lives with its code and registers itself: the knowledge base's import / export page of a bot
# (knowledge/backoffice/exchange.py, its URLs). The learning page (misunderstood questions, ignored groups)
# registers from dialogs/learning/admin.py: it drives the talk pipeline.
from .backoffice import exchange as exchange_admin  # noqa: E402, F401
