"""The back office opens on every page staff use, shows the knowledge and reads dialogs."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from accounts.models import Account, Membership, Role
from bots.models import Bot
from dialogs.models import Dialog, GdprRequest
from knowledge.models import KnowledgeItem

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, demo_bot):
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw-for-tests-only")
    client.force_login(user)
    return client


def test_every_changelist_opens(staff, chatbox):
    chatbox.talk("Combien coûte le compte ?")
    for path in [
        "bots/bot",
        "knowledge/knowledgeitem",
        "knowledge/tag",
        "knowledge/matchinggroup",
        "knowledge/globalsentence",
        "knowledge/galleryimage",
        "dialogs/dialog",
        "dialogs/gdprrequest",
        "dialogs/clienterror",
    ]:
        response = staff.get(f"/admin/{path}/")
        assert response.status_code == 200, path


def test_a_knowledge_item_page_shows_its_formulations_and_answers_per_space(staff, demo_bot):
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Account fees")
    page = staff.get(f"/admin/knowledge/knowledgeitem/{item.pk}/change/").content.decode()
    assert "Combien coûte le compte ?" in page
    assert "12 € par mois" in page  # the Pro space's answer


def test_publishing_from_the_list_is_seen_by_the_chat(staff, chatbox, demo_bot):
    draft = KnowledgeItem.objects.get(bot=demo_bot, label="Draft: new premium card")
    assert chatbox.talk("Parlez-moi de la nouvelle carte premium")["knowledgeId"] != draft.pk
    staff.post("/admin/knowledge/knowledgeitem/", {"action": "publish", "_selected_action": [draft.pk]})
    assert chatbox.talk("Parlez-moi de la nouvelle carte premium")["knowledgeId"] == draft.pk


def test_a_dialog_reads_as_a_conversation(staff, chatbox):
    chatbox.talk("Comment faire un virement ?")
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    page = staff.get(f"/admin/dialogs/dialog/{dialog.pk}/change/").content.decode()
    assert "Comment faire un virement ?" in page
    assert "Nouveau virement" in page


def test_an_editor_sees_only_the_bots_of_their_account_and_no_visitor_ids(client, demo_bot, chatbox):
    other = Bot.objects.create(name="Someone else's bot", account=Account.objects.create(name="B"))
    editor = get_user_model().objects.create_user("ed", password="pw-for-tests-only", is_staff=True, is_superuser=False)
    editor.user_permissions.set(Permission.objects.filter(codename__in=["view_bot", "view_dialog", "view_gdprrequest"]))
    Membership.objects.create(user=editor, account=demo_bot.account, role=Role.EDITOR)
    client.force_login(editor)
    bots = client.get("/admin/bots/bot/").content.decode()
    assert demo_bot.name in bots and other.name not in bots
    chatbox.talk("Bonjour")
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    page = client.get(f"/admin/dialogs/dialog/{dialog.pk}/change/").content.decode()
    assert chatbox.client_id not in page
    assert client.get("/admin/dialogs/gdprrequest/").status_code == 403


def test_ignoring_a_gdpr_request_needs_a_reason(staff, demo_bot):
    request = GdprRequest.objects.create(bot=demo_bot, client_id="abc", object="Get", mail="a@example.org")
    staff.post(f"/admin/dialogs/gdprrequest/{request.pk}/change/", {"action": "ignore", "reason": ""})
    request.refresh_from_db()
    assert request.status == "pending"
    staff.post(f"/admin/dialogs/gdprrequest/{request.pk}/change/", {"action": "ignore", "reason": "duplicate"})
    request.refresh_from_db()
    assert (request.status, request.reason) == ("ignored", "duplicate")
