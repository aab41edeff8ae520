"""Slot-filling fixtures: the demo bot's appointment (a date and a phone number), and a small bot with
one item per value type, so each type is tried through the talk endpoint."""

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import Bot, BotLanguage, Space, bump_knowledge_version
from dialogs.models import Dialog
from dialogs.slots.flow import FLOW, LEAVE
from knowledge.models import Answer, Formulation, KnowledgeItem
from tests.conftest import Chatbox

T = KnowledgeItem.SlotType
PUBLISHED = KnowledgeItem.Status.PUBLISHED


def next_weekday(weekday: int):
    """The date « mardi » means today: the coming one, today excluded."""
    today = timezone.localdate()
    return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)


def variables(chatbox) -> dict:
    return Dialog.objects.get(uuid=chatbox.context_id).variables


def in_flow(chatbox) -> bool:
    found = variables(chatbox)
    return FLOW in found or LEAVE in found


def appointment_id(bot) -> int:
    return KnowledgeItem.objects.get(bot=bot, label="Appointment").pk


# One item per value type: (label, type, variable, allowed values, the question that starts it,
# its answer, the question the bot asks, valid inputs and their stored value, invalid inputs).
TYPES = [
    ("Parts", T.INTEGER, "parts", [], "Je veux commander des parts", "Vous aurez ${capture.parts} parts.",
     "Combien de parts ?", [("j'en veux 4", "4"), ("douze", "12")], ["beaucoup", "quelques-unes"]),
    ("Poids", T.DECIMAL, "poids", [], "Je veux peser mon colis", "Colis de ${capture.poids} kg.",
     "Quel poids (kg) ?", [("2,5 kg", "2.5"), ("3", "3")], ["lourd", "pas trop"]),
    ("Livraison", T.DATE, "livraison", [], "Je veux choisir ma date de livraison", "Livraison le ${capture.livraison}.",
     "Quel jour ?", [("le 14/07/2031", "2031-07-14"), ("2031-02-03", "2031-02-03"), ("3 mars 2031", "2031-03-03")],
     ["bientôt", "le 31/02/2031"]),
    ("Newsletter", T.EMAIL, "courriel", [], "Je veux recevoir la lettre d'information",
     "Inscrit : ${capture.courriel}.", "Votre adresse e-mail ?", [("Moi@Exemple.FR", "moi@exemple.fr")],
     ["moi at exemple", "moi@"]),
    ("Rappel", T.PHONE, "numero", [], "Je veux être rappelé par un conseiller", "Appel au ${capture.numero}.",
     "Votre numéro ?", [("06.12.34.56.78", "0612345678"), ("+33 6 12 34 56 78", "+33612345678")],
     ["le 12", "0612"]),
    ("Message", T.TEXT, "message", [], "Je veux laisser un message", "Message reçu : « ${capture.message} ».",
     "Votre message ?", [("Rappelez-moi après 18 h", "Rappelez-moi après 18 h")], []),
    ("Pizza", T.LIST, "pizza", ["Margherita", "Reine", "Quatre fromages"], "Je veux commander une pizza",
     "Une ${capture.pizza}, c'est noté.", "Quelle pizza : Margherita, Reine ou Quatre fromages ?",
     [("une reine svp", "Reine"), ("QUATRE FROMAGES", "Quatre fromages")], ["une calzone", "pas de pizza"]),
]  # fmt: skip


def _space(bot) -> Space:
    return Space.objects.create(bot=bot, name="Defaut", is_default=True)


def make_types_bot(account=None) -> Bot:
    """A French bot: per value type, a slot item and an item that needs it, with its own sentences."""
    bot = Bot.objects.create(name="Typer", default_language="fr", **({"account": account} if account else {}))
    BotLanguage.objects.create(bot=bot, code="fr")
    space = _space(bot)
    for position, (label, kind, variable, allowed, asked, answer, question, _, _) in enumerate(TYPES):
        slot = KnowledgeItem.objects.create(
            bot=bot,
            kind=KnowledgeItem.Kind.SLOT,
            status=PUBLISHED,
            label=f"{label} (slot)",
            slot_variable=variable,
            slot_type=kind,
            slot_values=allowed,
            slot_question={"fr": question},
            slot_invalid={"fr": f"Valeur refusée ({kind})."},
            position=position,
        )
        item = KnowledgeItem.objects.create(
            bot=bot, status=PUBLISHED, label=label, slots=[slot.pk], slot_intro={"fr": "D'accord."}, position=position
        )
        Formulation.objects.create(item=item, language="fr", text=asked)
        Answer.objects.create(item=item, language="fr", space=space, text=answer)
    bump_knowledge_version(bot.pk)
    return bot


@pytest.fixture
def types_bot(db, settings):
    settings.MATCHING_EMBEDDINGS = False  # lexical matching: these items differ by their words
    return make_types_bot()


@pytest.fixture
def types_chatbox(client, types_bot):
    return Chatbox(client, str(types_bot.uuid))
