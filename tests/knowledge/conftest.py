"""Fixtures of the knowledge base exchange tests: a bot holding every kind of knowledge, people with
tokens, an upload helper, the knowledge base "as a whole" to compare before and after a call, and a
trap server that counts any request a hostile file might make."""

import http.server
import io
import threading
from pathlib import Path

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache

from accounts.models import Role
from bots.models import Bot, BotLanguage, Space
from knowledge.exchange import export_knowledge_base
from knowledge.models import Answer, Formulation, GalleryImage, GlobalSentence, KnowledgeItem, MatchingGroup, Tag
from preferences.services import Owner, set_preference
from tests.accounts.personas import make_persona, personas  # noqa: F401 (personas is a fixture)

ATTACKS = Path(__file__).resolve().parent / "attacks"
# A PNG of one transparent pixel, and a larger picture that spans several base64 pieces.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082"
)
PHOTO = bytes(range(256)) * 5000  # 1.2 MiB


def whole_knowledge_base(bot) -> bytes:
    """Everything the exchange covers (gallery and preferences included), to compare states."""
    bot.refresh_from_db()
    return b"".join(export_knowledge_base(bot, gallery=True, preferences=True))


def build_rich_bot(name: str = "Rich bot", account=None) -> Bot:
    """A bot with every kind of knowledge item and every answer feature, in two languages and
    three spaces, with nested tags, nested matching groups, a gallery and preferences."""
    bot = Bot.objects.create(name=name, account=account, default_language="fr")
    BotLanguage.objects.create(bot=bot, code="fr")
    BotLanguage.objects.create(bot=bot, code="en", available=False)
    default = Space.objects.create(bot=bot, name="Defaut", is_default=True)
    pro = Space.objects.create(bot=bot, name="Pro")
    Space.objects.create(bot=bot, name="Privé & co")

    products = Tag.objects.create(bot=bot, name="Produits")
    cards = Tag.objects.create(bot=bot, name="Cartes", parent=products)
    Tag.objects.create(bot=bot, name="Premium <gold>", parent=cards)
    social = Tag.objects.create(bot=bot, name="Social")

    MatchingGroup.objects.create(
        bot=bot, name="carte", category="Produits", members=["carte", "carte bleue", "{carte de paiement}"]
    )
    MatchingGroup.objects.create(bot=bot, name="carte de paiement", category="Produits", members=["visa", "cb"])
    no = MatchingGroup.objects.create(bot=bot, name="Non", category="Social", members=["non", "no", "pas du tout"])

    lost = KnowledgeItem.objects.create(
        bot=bot, kind="question", status="published", label="Carte perdue", tag=cards, position=0, featured=True
    )
    Formulation.objects.create(item=lost, language="fr", text="J'ai perdu ma {carte}", position=0)
    Formulation.objects.create(item=lost, language="fr", text="carte égarée", rewordable=False, position=1)
    Formulation.objects.create(item=lost, language="en", text="I lost my card", position=0)
    Answer.objects.create(
        item=lost,
        language="fr",
        space=default,
        text="<p>Faites opposition au <a href=\"tel:0800\">0800 &amp; co</a>\r\n« vite » ]]> 'ok'</p>",
        ask_feedback=True,
    )
    Answer.objects.create(
        item=lost,
        language="fr",
        space=pro,
        text="<p>Appelez votre conseiller Pro.</p>",
        template_name="dydu_quick_reply_001",
        template_data='{"button1": "<a href=\\"https://bank.example/block?a=1&b=2\\">Bloquer é</a>"}',
        url_redirect="https://bank.example/opposition?a=1&b=2",
        steps=[{"text": "<p>Étape 2</p>"}, {"text": "Étape 3 « vite »", "sidebar": {"title": "Délais", "width": 300}}],
        sidebar={"title": "Opposition", "url": "https://bank.example/help", "width": 400, "height": "80%"},
        gui_action="javascript:dyduLivechat()",
        livechat=True,
    )
    Answer.objects.create(item=lost, language="en", space=default, text="Block your card now.")

    tree = KnowledgeItem.objects.create(bot=bot, status="published", label="Ouvrir un compte", tag=products, position=1)
    Formulation.objects.create(item=tree, language="fr", text="Je veux ouvrir un compte")
    Answer.objects.create(item=tree, language="fr", space=default, text="Pour vous ou pour une entreprise ?")
    personal = KnowledgeItem.objects.create(
        bot=bot, status="published", label="Pour moi", parent=tree, direct_access=True, position=0
    )
    Formulation.objects.create(item=personal, language="fr", text="pour moi")
    Answer.objects.create(item=personal, language="fr", space=default, text="Compte personnel.", ask_feedback=True)
    business = KnowledgeItem.objects.create(bot=bot, status="draft", label="Entreprise", parent=tree, position=1)
    Formulation.objects.create(item=business, language="fr", text="pour mon entreprise")
    Answer.objects.create(item=business, language="fr", space=default, text="Quelle forme juridique ?")
    company = KnowledgeItem.objects.create(bot=bot, status="published", label="SARL", parent=business, position=0)
    Formulation.objects.create(item=company, language="fr", text="une SARL")
    Answer.objects.create(item=company, language="fr", space=default, text="Voici les pièces à fournir.")

    reminder = KnowledgeItem.objects.create(
        bot=bot,
        kind="complementary",
        status="published",
        label="Rappel sécurité",
        complement_position="before",
        position=2,
    )
    reminder.complement_tags.set([cards, social])
    Answer.objects.create(item=reminder, language="fr", space=default, text="Ne donnez jamais votre code.")
    everywhere = KnowledgeItem.objects.create(
        bot=bot, kind="complementary", status="draft", complement_position="instead", complement_all=True, position=3
    )
    Answer.objects.create(item=everywhere, language="fr", space=default, text="Service fermé aujourd'hui.")

    predefined = KnowledgeItem.objects.create(
        bot=bot, kind="predefined", status="published", label="Attente", position=4
    )
    Answer.objects.create(item=predefined, language="fr", space=default, text="Un instant, je vérifie.")
    rule = {
        "type": "Container",
        "operator": "And",
        "value": "",
        "param_1": "",
        "children": [
            {"type": "CurrentPage", "operator": "Contains", "value": "/prets", "param_1": "", "children": []},
            {"type": "IdleDuration", "operator": "GreaterThan", "value": "30", "param_1": "", "children": []},
        ],
    }
    event = KnowledgeItem.objects.create(
        bot=bot, kind="event", status="published", label="Aide prêts", event_rules=[rule], position=5
    )
    Answer.objects.create(item=event, language="fr", space=default, text="Besoin d'aide pour votre prêt ?")
    slot = KnowledgeItem.objects.create(
        bot=bot, kind="slot", status="published", label="Nombre de parts", slot_variable="part", position=6
    )
    Formulation.objects.create(item=slot, language="fr", text="{nombre}")
    Answer.objects.create(item=slot, language="fr", space=default, text="Vous voulez ${capture.part} parts.")
    off = KnowledgeItem.objects.create(bot=bot, status="disabled", label="Ancienne offre", tag=social, position=7)
    Formulation.objects.create(item=off, language="fr", text="offre de bienvenue 2019")

    GlobalSentence.objects.create(bot=bot, language="fr", kind="welcome", text="Bonjour <b>vous</b> !")
    GlobalSentence.objects.create(bot=bot, language="en", kind="misunderstood", text="Sorry?\nTry again.")
    GalleryImage.objects.create(bot=bot, name="logo.png", media_type="image/png", content=PIXEL)
    GalleryImage.objects.create(
        bot=bot, name='photo "d\'été".bin', media_type="application/octet-stream", content=PHOTO
    )
    set_preference(Owner(bot=bot), "bot.servicename", "Banque Exemple")
    set_preference(Owner(bot=bot), "bot.no.group.uuid", str(no.uuid))
    bot.refresh_from_db()
    return bot


@pytest.fixture(autouse=True)
def _fresh_export_slots():
    """The export slots live in the cache; a test never inherits another test's slot. A process-local
    cache is cleared (user ids are reused between tests on SQLite); a shared one (Redis, in CI with
    PostgreSQL, whose ids are never reused) is left alone: clearing it would wipe the counters of a
    test running in another process."""
    local = isinstance(caches["default"], LocMemCache)
    if local:
        cache.clear()
    yield
    if local:
        cache.clear()


@pytest.fixture
def rich_bot(personas):  # noqa: F811
    return build_rich_bot(account=personas.account)


@pytest.fixture
def reader_token(personas):  # noqa: F811
    """A token of a reader of the demo bot's account: may export, may not change anything."""
    return make_persona(personas.account, Role.READER)[1]


def upload(client, url: str, content: bytes, token: str, *, field: str = "file", name: str = "kb.xml", **extra):
    data = {field: io.BytesIO(content)}
    data[field].name = name
    return client.post(url, data, HTTP_AUTHORIZATION=token, **extra)


class Trap(http.server.ThreadingHTTPServer):
    """A local HTTP server that answers 200 to anything and remembers every request."""

    daemon_threads = True

    def __init__(self):
        self.hits: list[str] = []
        trap = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                trap.hits.append(self.path)
                body = b'<!ENTITY stolen "leaked">'
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]


@pytest.fixture
def trap():
    server = Trap()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def attack(name: str, trap: Trap | None = None) -> bytes:
    """An attack file of tests/knowledge/attacks, aimed at the trap server when it calls out."""
    text = (ATTACKS / name).read_text(encoding="utf-8")
    if trap is not None:
        text = text.replace("{port}", str(trap.port))
    return text.encode("utf-8")
