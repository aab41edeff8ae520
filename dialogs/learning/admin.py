"""Back office of learning: the misunderstood questions page of a bot (groups, closest items, one-click
formulation, new draft item, ignore with a reason) and the list of ignored groups."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bots.admin_scoping import BotScopedAdmin, bots_of
from knowledge.learning.models import IgnoredGroup, MisunderstoodInput
from knowledge.models import KnowledgeItem

from . import actions, inputs, page

# The "another item" list of the page: enough for a bot an editor scrolls through, not a whole import.
MAX_ITEM_CHOICES = 1000


def may_view(request) -> bool:
    """The sidebar's Learning entry (config/settings.py UNFOLD): for those who may read the page."""
    return (
        request.user.is_active and request.user.is_staff and request.user.has_perm("knowledge.view_misunderstoodinput")
    )


def may_view_ignored(request) -> bool:
    return request.user.is_active and request.user.is_staff and request.user.has_perm("knowledge.view_ignoredgroup")


def page_url(bot, **params) -> str:
    """The learning page of `bot` (the bot's page links here)."""
    query = {"bot": bot.pk, **{k: v for k, v in params.items() if v}}
    return reverse("admin:knowledge_misunderstoodinput_changelist") + "?" + urlencode(query)


@admin.register(MisunderstoodInput)
class MisunderstoodInputAdmin(BotScopedAdmin):
    """Not a list of rows: the page groups the bot's inputs (dialogs/learning/page.py)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        act = self.admin_site.admin_view(self.act_view)
        return [path("<int:bot_id>/act/", act, name="knowledge_misunderstoodinput_act"), *super().get_urls()]

    def _bot(self, request, bot_id):
        bot = bots_of(request.user).filter(pk=bot_id).first()
        if bot is None:
            raise Http404(_("No such bot."))
        return bot

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_permission(request):
            raise PermissionDenied
        bots = list(bots_of(request.user).order_by("name"))
        wanted = request.GET.get("bot", "")
        bot = next((b for b in bots if str(b.pk) == wanted), None)
        if bot is None and wanted:
            raise Http404(_("No such bot."))
        bot = bot or (bots[0] if bots else None)
        try:
            number = max(int(request.GET.get("page", "1")), 1)
        except ValueError:
            number = 1
        language = request.GET.get("language", "")
        # Which inputs: all of them, or only the questions operators answered without a suggestion.
        source = request.GET.get("source", "")
        source = source if source in inputs.SOURCES else ""
        learning = page.build(bot, number, language, source) if bot is not None else None
        user = request.user
        context = {
            **self.admin_site.each_context(request),
            "title": _("Misunderstood questions"),
            "opts": self.model._meta,
            "bots": bots,
            "bot": bot,
            "learning": learning,
            "page_number": number,
            "language": language,
            "source": source,
            "languages": bot.language_codes() if bot else [],
            "has_next": learning is not None and number * page.GROUPS_PER_PAGE < len(learning.groups),
            "window_days": inputs.WINDOW_DAYS,
            "max_inputs": inputs.MAX_INPUTS,
            "may_add": user.has_perm("knowledge.add_formulation"),
            "may_create": user.has_perm("knowledge.add_knowledgeitem") and user.has_perm("knowledge.add_formulation"),
            "may_ignore": user.has_perm("knowledge.add_ignoredgroup"),
            "ignored_count": IgnoredGroup.objects.filter(bot=bot).count() if bot else 0,
            "ignored_url": reverse("admin:knowledge_ignoredgroup_changelist")
            + (f"?bot__id__exact={bot.pk}" if bot else ""),
            "item_choices": self._item_choices(bot) if bot else [],
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/knowledge/learning/page.html", context)

    def _item_choices(self, bot):
        return list(
            KnowledgeItem.objects.filter(bot=bot, kind__in=[KnowledgeItem.Kind.QUESTION, KnowledgeItem.Kind.SLOT])
            .exclude(status=KnowledgeItem.Status.DISABLED)
            .order_by("label", "id")
            .values_list("id", "label")[:MAX_ITEM_CHOICES]
        )

    def act_view(self, request, bot_id):
        """One action on a group (POST): add_to=<item id>, action=other (other_item=<id>), new_item or ignore."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_view_permission(request):
            raise PermissionDenied
        bot = self._bot(request, bot_id)
        data, user = request.POST, request.user
        back = page_url(
            bot,
            page=data.get("page", ""),
            language=data.get("filter_language", ""),
            source=data.get("filter_source", "") if data.get("filter_source") in inputs.SOURCES else "",
        )
        try:
            action = data.get("action", "")
            if data.get("add_to") or action == "other":
                if not user.has_perm("knowledge.add_formulation"):
                    raise PermissionDenied
                formulation = actions.add_formulation(
                    bot, data.get("add_to") or data.get("other_item"), data.get("text"), data.get("language")
                )
                _say_what_the_bot_does(request, bot, formulation)
            elif action == "new_item":
                if not (user.has_perm("knowledge.add_knowledgeitem") and user.has_perm("knowledge.add_formulation")):
                    raise PermissionDenied
                item = actions.new_item(bot, data.get("text"), data.get("language"))
                messages.success(
                    request,
                    _("Draft item “%(item)s” made from the input: write its answer, then publish it.") % {"item": item},
                )
                return HttpResponseRedirect(reverse("admin:knowledge_knowledgeitem_change", args=[item.pk]))
            elif action == "ignore":
                if not user.has_perm("knowledge.add_ignoredgroup"):
                    raise PermissionDenied
                ignored = actions.ignore(
                    bot,
                    user,
                    data.get("label"),
                    data.getlist("texts"),
                    data.get("count"),
                    data.get("reason"),
                    data.get("language"),
                )
                messages.success(
                    request,
                    _("“%(label)s” is ignored: %(reason)s") % {"label": ignored.label, "reason": ignored.reason},
                )
            else:
                raise actions.LearningError(_("Choose what to do with the group."))
        except actions.LearningError as error:
            messages.error(request, str(error))
        return HttpResponseRedirect(back)


def _say_what_the_bot_does(request, bot, formulation) -> None:
    """After a formulation is added: whether the bot now answers the input with its item (checked on the
    bot's new index), or what it still does with it."""
    item = formulation.item
    added = format_html(
        _('“{}” is now a formulation of <a href="{}">{}</a>'),
        formulation.text,
        reverse("admin:knowledge_knowledgeitem_change", args=[item.pk]),
        item,
    )
    outcome, best = actions.answered_by(bot, formulation.text, formulation.language, item)
    if outcome == "direct" and best == item.pk:
        if item.status == KnowledgeItem.Status.PUBLISHED:
            messages.success(request, format_html("{}: {}", added, _("the bot now answers it with this item.")))
        else:
            messages.success(request, format_html("{}: {}", added, _("the bot will answer it once it is published.")))
        return
    other = KnowledgeItem.objects.filter(pk=best, bot=bot).first() if best else None
    if outcome == "direct" and other:
        still = _("the bot still answers it with “%(item)s”: make this item's formulations closer.") % {"item": other}
    elif outcome == "reword":
        still = _("the bot offers rewordings for it: make this item's formulations closer.")
    else:
        still = _("the bot still does not understand it.")
    messages.warning(request, format_html("{}, {} {}", added, _("but"), still))


@admin.register(IgnoredGroup)
class IgnoredGroupAdmin(BotScopedAdmin):
    """Groups set aside from learning, and why; deleting one brings its inputs back to the page."""

    list_display = ["label", "language", "count", "reason", "ignored_by", "ignored_at", "bot"]
    list_filter = ["bot", "language"]
    search_fields = ["label", "reason"]
    readonly_fields = ["bot", "language", "label", "input_list", "count", "reason", "ignored_by", "ignored_at"]
    fields = readonly_fields
    list_select_related = ["bot", "ignored_by"]

    def has_add_permission(self, request):
        return False  # made from the learning page only, where the group is known

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("inputs"))
    def input_list(self, group):
        return ", ".join(f"“{text}”" for text in group.texts[:50]) + (" …" if len(group.texts) > 50 else "")
