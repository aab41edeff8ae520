"""The demo bot's context conditions, as the README tells a person to try them: the loan answer depends on
the dialog's variables (client_type set by saying « Je suis chef d'entreprise », age sent by the site)."""

import pytest

from dialogs.models import Dialog

pytestmark = pytest.mark.django_db

LOAN = "Je voudrais faire un prêt immobilier"


def test_the_loan_answer_follows_the_dialogs_variables(chatbox):
    assert "Faites une simulation" in chatbox.talk(LOAN)["text"]
    # The site sends the visitor's age: the second priority group holds.
    assert "Prêt Jeune Propriétaire" in chatbox.talk(LOAN, variables='{"age": "27"}')["text"]
    # Saying it sets client_type = pro (an answer that sets a variable); the first group now wins.
    said = chatbox.talk("Je suis chef d'entreprise")
    assert "client professionnel" in said["text"]
    assert Dialog.objects.get(uuid=chatbox.context_id).variables == {"age": "27", "client_type": "pro"}
    assert "crédit immobilier professionnel dès 4,1 %" in chatbox.talk(LOAN)["text"]


def test_in_english_too(chatbox):
    chatbox.language = "en"
    assert "loan simulator" in chatbox.talk("I would like a mortgage")["text"]
    assert "First-home loan" in chatbox.talk("I would like a mortgage", variables='{"age": "24"}')["text"]
    chatbox.talk("I run a company")
    assert "commercial mortgages from 4.1%" in chatbox.talk("I would like a mortgage")["text"]
