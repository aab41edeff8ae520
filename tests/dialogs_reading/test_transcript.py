"""A dialog's transcript on its page: bubbles on the visitor's and the bot's sides, operators apart,
answers sanitised and linked to their item, rewordings offered and the one clicked, feedback with its
reason and comment, files, variables; words instead of codes; read and corrected marks."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dialogs.models import Dialog

pytestmark = pytest.mark.django_db


def page_of(client, dialog) -> str:
    response = client.get(f"/admin/dialogs/dialog/{dialog.pk}/change/")
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def sides(page: str) -> list[str]:
    transcript = page.split('data-testid="transcript"')[1]
    return re.findall(r'data-side="(\w+)"', transcript)


def test_a_dialog_reads_as_the_visitor_saw_it(client, seeded, as_role):
    as_role("editor")
    page = page_of(client, seeded["direct"])
    # Opening the chat is a notice, the question is the visitor's, the answer the bot's.
    assert sides(page) == ["notice", "bot", "visitor", "bot"]
    assert "Opened the chat" in page and "#welcome#" not in page
    assert "Quels sont vos horaires ?" in page
    assert "<b>de 9 h à 18 h</b>" in page
    assert "<script>" not in page.split("</style>")[-1] and "onerror" not in page
    item = seeded["items"]["hours"]
    assert f'href="/admin/knowledge/knowledgeitem/{item.pk}/change/"' in page and "Opening hours" in page
    assert "Welcome message" in page and "Direct answer" in page and "DMUnderstoodQuestion" not in page
    # The thumbs down, its reason (the default second reason in French) and the comment.
    assert "Not useful" in page and "Pas le samedi ?" in page
    assert 'data-testid="feedback"' in page and "reason:" in page
    # The variables.
    assert "customer" in page and "gold" in page


def test_rewordings_offered_and_the_one_clicked(client, seeded, as_role):
    as_role("reader")
    page = page_of(client, seeded["recovered"])
    assert "Rewordings offered" in page and "RWSeveralRewords" not in page
    chips = re.findall(r'class="dlg-chip( clicked)?" href="[^"]+" data-clicked="(\d)">([^<]+)<', page)
    assert [(label.strip(), clicked) for _, clicked, label in chips] == [
        ("Lost card ✓ clicked", "1"),
        ("Account fees", "0"),
    ]
    assert "clicked a rewording" in page  # the visitor's next input came from that click
    assert "Answer to a rewording" in page
    assert "Useful" in page  # the later thumbs up


def test_operators_messages_files_and_live_chat_notices(client, seeded, as_role):
    as_role("operator")
    page = page_of(client, seeded["livechat"])
    assert sides(page) == ["visitor", "notice", "operator", "visitor", "notice"]
    assert "Operator: Anne" in page and "Bonjour, je suis Anne." in page
    assert "facture.pdf" in page and "2.0\xa0KB" in page
    assert "Handed to an operator" in page and "Live chat ended by the operator" in page
    assert "OPRegularOperatorAnswer" not in page and "LCVisitorMessage" not in page


def test_qualification_mode_dialogs_are_marked(client, seeded, as_role):
    as_role("reader")
    assert 'data-testid="qualification-mode"' in page_of(client, seeded["test"])
    assert 'data-testid="qualification-mode"' not in page_of(client, seeded["direct"])


def test_opening_marks_read_once(client, seeded, as_role):
    reader = as_role("reader")
    page_of(client, seeded["failed"])
    failed = Dialog.objects.get(pk=seeded["failed"].pk)
    assert failed.read_by == reader and failed.read_at is not None and failed.corrected_at is None
    first = failed.read_at
    as_role("editor")
    page = page_of(client, seeded["failed"])
    assert Dialog.objects.get(pk=failed.pk).read_at == first  # still read by the first reader
    assert f"by {reader.username}" in page


def test_an_editor_marks_corrected_then_unread(client, seeded, as_role):
    editor = as_role("editor")
    url = f"/admin/dialogs/dialog/{seeded['failed'].pk}/change/"
    assert 'data-testid="mark-corrected"' in page_of(client, seeded["failed"])
    assert client.post(url, {"mark": "corrected"}).status_code == 302
    failed = Dialog.objects.get(pk=seeded["failed"].pk)
    assert failed.corrected_by == editor and failed.corrected_at is not None
    assert 'data-testid="mark-not-corrected"' in page_of(client, seeded["failed"])
    assert client.post(url, {"mark": "unread"})["Location"] == "/admin/dialogs/dialog/"
    failed.refresh_from_db()
    assert (failed.read_at, failed.corrected_at) == (None, None)
    assert client.post(url, {"mark": "paint it blue"}).status_code == 302  # said on the page, nothing changed


def test_a_reader_may_not_mark_corrected(client, seeded, as_role):
    as_role("reader")
    page = page_of(client, seeded["failed"])
    assert 'data-testid="mark-corrected"' not in page
    url = f"/admin/dialogs/dialog/{seeded['failed'].pk}/change/"
    assert client.post(url, {"mark": "corrected"}).status_code == 403
    assert Dialog.objects.get(pk=seeded["failed"].pk).corrected_at is None


def test_list_actions_mark_a_selection(client, seeded, as_role):
    as_role("editor")
    chosen = [seeded["direct"].pk, seeded["failed"].pk]
    client.post("/admin/dialogs/dialog/", {"action": "mark_corrected", "_selected_action": chosen})
    corrected = set(Dialog.objects.exclude(corrected_at=None).values_list("pk", flat=True))
    assert corrected == set(chosen)
    assert set(Dialog.objects.exclude(read_at=None).values_list("pk", flat=True)) == set(chosen)
    client.post("/admin/dialogs/dialog/", {"action": "mark_unread", "_selected_action": chosen})
    assert not Dialog.objects.exclude(read_at=None).exists()


def test_a_transcript_takes_few_queries_however_long(client, seeded, as_role):
    from .seed import say

    as_role("reader")
    page_of(client, seeded["direct"])

    def count():
        with CaptureQueriesContext(connection) as queries:
            page_of(client, seeded["direct"])
        return len(queries)

    short = count()
    for minute in range(2, 42):
        say(seeded["direct"], minute, "encore", "DMUnderstoodQuestion", "<p>Oui</p>",
            knowledge_item=seeded["items"]["fees"], feedback="negative", feedback_choice_key=0)  # fmt: skip
    assert count() == short


def test_times_are_in_the_bots_time_zone(client, bot, seeded, as_role):
    bot.time_zone = "Europe/Paris"  # UTC+1 in March: the seeded 09:01 UTC reads 10:01
    bot.save(update_fields=["time_zone"])
    as_role("reader")
    page = page_of(client, seeded["direct"])
    assert re.search(r"Visitor\s+· 10:01:00", page) and "2026-03-02 10:00" in page
    assert "2026-03-02 10:00" in client.get("/admin/dialogs/dialog/").content.decode()


def test_a_survey_the_visitor_sent_is_in_the_transcript(client, seeded, as_role):
    from datetime import timedelta

    from dialogs.surveys.models import Survey, SurveyAnswer, SurveyAnswerValue

    failed = seeded["failed"]
    survey = Survey.objects.create(bot=failed.bot, name="Satisfaction", title="Votre avis", language="fr")
    answer = SurveyAnswer.objects.create(
        survey=survey, dialog=failed, created_at=failed.first_activity + timedelta(seconds=30)
    )
    SurveyAnswerValue.objects.create(answer=answer, label="Note", value="2 sur 5")
    as_role("reader")
    page = page_of(client, failed)
    assert sides(page) == ["visitor", "bot", "visitor", "visitor", "bot"]  # sent between the two talks
    assert "Answered the survey “Votre avis”" in page and "<dt>Note</dt><dd>2 sur 5</dd>" in page
