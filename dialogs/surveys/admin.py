"""Back office for surveys: a survey with its ordered fields inline (a choice field's options one per
line), and each survey's results (counts per option, the text answers, a CSV download)."""

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from unfold.admin import TabularInline

from accounts.admin import AccountScopedAdmin
from bots.admin_scoping import BotScopedAdmin
from bots.servlet.errors import InvalidField

from . import definitions, results
from .models import Survey, SurveyField

K = SurveyField.Kind


class SurveyFieldForm(forms.ModelForm):
    options = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 18}),
        required=False,
        help_text=_("Choices and drop-down lists: one option per line."),
    )

    class Meta:
        model = SurveyField
        fields = ["position", "kind", "label", "mandatory", "multiple", "max_length"]
        widgets = {
            "position": forms.NumberInput(attrs={"style": "width: 3.5em"}),
            "kind": forms.Select(attrs={"style": "width: 13em"}),
            "label": forms.TextInput(attrs={"size": 24}),
            "max_length": forms.NumberInput(attrs={"style": "width: 5em"}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [(kind.value, kind.label) for kind in definitions.TOP_KINDS]
        if self.instance.pk:
            self.initial["options"] = "\n".join(
                self.instance.children.order_by("position", "id").values_list("label", flat=True)
            )

    def clean(self):
        data = super().clean()
        labels = [line.strip() for line in (data.get("options") or "").splitlines() if line.strip()]
        try:
            definitions.check_options(data.get("kind", ""), labels)
        except InvalidField as error:
            self.add_error("options", error.message.split(": ", 1)[-1])
        data["option_labels"] = labels
        return data


class SurveyFieldInline(TabularInline):
    model = SurveyField
    form = SurveyFieldForm
    fk_name = "survey"
    extra = 1
    ordering = ["position", "id"]

    def get_queryset(self, request):
        return super().get_queryset(request).filter(parent__isnull=True)

    def get_fields(self, request, obj=None):
        # People who may only read see the options as text (the form's textarea is for editing).
        shown = "options" if self.has_change_permission(request, obj) else "option_list"
        return ["position", "kind", "label", "mandatory", "multiple", "max_length", shown]

    def get_readonly_fields(self, request, obj=None):
        return ["option_list"]

    @admin.display(description=_("Options"))
    def option_list(self, row):
        return ", ".join(row.children.order_by("position", "id").values_list("label", flat=True)) or "-"


@admin.register(Survey)
class SurveyAdmin(AccountScopedAdmin, BotScopedAdmin):
    """Any role of the bot's account reads surveys; editors and administrators change them."""

    account_path = "bot__account"
    list_display = ["name", "language", "kind", "bot", "answer_count", "results_link"]
    list_filter = ["bot", "language", "kind"]
    search_fields = ["name", "title"]
    inlines = [SurveyFieldInline]
    readonly_fields = ["uuid", "results_link"]
    fields = [
        "bot",
        ("name", "language", "kind"),
        "title",
        ("submit_value", "required_message"),
        "reword",
        "uuid",
        "results_link",
    ]

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is not SurveyField:
            return
        for field_form in formset.forms:
            row = field_form.instance
            if row.pk and field_form.cleaned_data and not field_form.cleaned_data.get("DELETE"):
                if row.kind != K.MULTIPLE_CHOICE and row.multiple:
                    row.multiple = False
                    row.save(update_fields=["multiple"])
                definitions.sync_options(row, field_form.cleaned_data.get("option_labels", []))

    def delete_model(self, request, obj):
        definitions.delete_survey(obj)

    @admin.display(description=_("Answers"))
    def answer_count(self, survey):
        return survey.answers.count()

    @admin.display(description=_("Results"))
    def results_link(self, survey):
        if not survey.pk:
            return "-"
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:dialogs_survey_results", args=[survey.pk]), gettext("Results")
        )

    def get_urls(self):
        own = [
            path(
                "<int:survey_id>/results/", self.admin_site.admin_view(self.results_view), name="dialogs_survey_results"
            ),
            path("<int:survey_id>/results.csv", self.admin_site.admin_view(self.csv_view), name="dialogs_survey_csv"),
        ]
        return own + super().get_urls()

    def _survey(self, request, survey_id):
        if not self.has_view_permission(request):
            raise PermissionDenied
        return get_object_or_404(self.get_queryset(request), pk=survey_id)

    def results_view(self, request, survey_id):
        survey = self._survey(request, survey_id)
        total, fields = results.field_results(survey)
        for item in fields:
            for count in item.get("counts", []):
                count["percent"] = round(100 * count["count"] / total) if total else 0
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Results of %(survey)s") % {"survey": f"{survey.name} [{survey.language}]"},
            "survey": survey,
            "total": total,
            "fields": fields,
            "opts": self.model._meta,
            "csv_url": reverse("admin:dialogs_survey_csv", args=[survey.pk]),
        }
        return TemplateResponse(request, "admin/dialogs/survey/results.html", context)

    def csv_view(self, request, survey_id):
        survey = self._survey(request, survey_id)
        response = StreamingHttpResponse(results.results_csv(survey), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="survey-{survey.name}-{survey.language}.csv"'
        return response
