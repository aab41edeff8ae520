"""Back-office pages without a browser: an item's answer offers only its bot's surveys, the results'
CSV, and no page of another account's survey."""

import csv
import io

import pytest

from bots.models import Bot
from dialogs.models import Survey
from dialogs.surveys.definitions import save_survey
from knowledge.models import KnowledgeItem
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor(client, demo_bot):
    user, _ = make_persona(demo_bot.account, "editor")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    client.force_login(user)
    return user


def test_an_answer_offers_the_surveys_of_its_bot(client, demo_bot, admin_user, satisfaction):
    client.force_login(admin_user)  # knowledge items' pages follow Django's model permissions
    other = Bot.objects.create(name="Other", default_language="fr")
    foreign = save_survey(other, {"name": "foreign", "fields": [{"type": "TEXT"}]})
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Give your opinion")
    page = client.get(f"/admin/knowledge/knowledgeitem/{item.pk}/change/").content.decode()
    assert f'<option value="{satisfaction.uuid}" selected>satisfaction [fr]</option>' in page
    assert str(foreign.uuid) not in page


def test_results_csv_and_scoping(client, demo_bot, editor, satisfaction):
    csv_page = client.get(f"/admin/dialogs/survey/{satisfaction.pk}/results.csv")
    assert csv_page["Content-Type"].startswith("text/csv")
    header = next(csv.reader(io.StringIO(b"".join(csv_page.streaming_content).decode())))
    assert header[:4] == ["date", "contextId", "transport", "Êtes-vous satisfait de la réponse ?"]
    other = Bot.objects.create(name="Other", default_language="fr")
    foreign = save_survey(other, {"name": "foreign", "fields": [{"type": "TEXT"}]})
    assert client.get(f"/admin/dialogs/survey/{foreign.pk}/results/").status_code == 404
    assert client.get(f"/admin/dialogs/survey/{foreign.pk}/results.csv").status_code == 404
    assert Survey.objects.filter(bot=other).count() == 1
