"""The input is given to the sentence encoder with the knowledge base's spelling of its words (casing.py): the
encoder tells "DigiD" from "digid" (cosine 0.50 between "DigiD werkt niet" and "digid werkt niet") and "déjà"
from "deja", and visitors type in lowercase, without accents."""

import numpy as np
import pytest

from knowledge.matching import DIRECT, FormulationEntry, Matcher, MatcherConfig, embeddings_available
from knowledge.matching.casing import respelled, spellings

# A town hall's items, written for this test the way such pages write them: names and acronyms capitalised.
TOWN_HALL = {
    1: ["Hoe vraag ik DigiD aan?", "Ik ben mijn DigiD wachtwoord vergeten", "Inloggen met DigiD lukt niet"],
    2: ["Kwijtschelding van gemeentelijke belastingen", "Ik kan de aanslag niet betalen"],
    3: ["Bezwaar maken tegen de WOZ-waarde", "Mijn WOZ-waarde is te hoog"],
    4: ["Mijn paspoort is kwijt", "Paspoort gestolen, wat nu?"],
    5: ["Bijstand aanvragen", "Ik heb geen inkomen meer"],
    6: ["Wanneer is het gemeentehuis open?", "Openingstijden van het Stadskantoor in Utrecht"],
}


def test_the_knowledge_bases_spelling_of_its_capitalised_words():
    texts = [text for texts in TOWN_HALL.values() for text in texts] + ["Post voor de gemeente", "de post"]
    found = spellings(texts)
    assert found["digid"] == "DigiD" and found["woz"] == "WOZ" and found["utrecht"] == "Utrecht"
    # A sentence's first capital says nothing ("Hoe", "Bijstand"); a word also written in lowercase is kept as
    # typed ("Post" opens a sentence, "post" is written lowercase too); "Stadskantoor" is capitalised mid-sentence.
    assert {"hoe", "bijstand", "ik", "post", "paspoort"}.isdisjoint(found) and found["stadskantoor"] == "Stadskantoor"
    assert respelled("digid kwijt, bezwaar woz in UTRECHT", found) == "DigiD kwijt, bezwaar WOZ in Utrecht"
    assert respelled("Après la fin. Ma carte", spellings(["Ma carte Visa", "Fin. Après"])) == "Après la fin. Ma carte"


def test_the_knowledge_bases_accents():
    found = spellings(["Où est ma commande ?", "Je n'ai pas reçu ma commande", "Déjà payé, et après ?", "ou bien"])
    assert found["recu"] == "reçu" and found["paye"] == "payé" and found["apres"] == "après"
    # "ou" is written plainly too (another word than "où"); "Déjà" only opens a text: both left as typed.
    assert "ou" not in found and respelled("ou est ma commande deja payee, pas recu", found) == (
        "ou est ma commande deja payee, pas reçu"
    )


def build(use_embeddings=True):
    entries = [
        FormulationEntry(id=n, item_id=item, text=text)
        for n, (item, text) in enumerate(((i, t) for i, texts in TOWN_HALL.items() for t in texts), start=1)
    ]
    return Matcher.build("nl", entries, [], MatcherConfig(use_embeddings=use_embeddings))


needs_models = pytest.mark.skipif(not embeddings_available(), reason="needs the sentence encoders")


@needs_models
def test_the_input_is_encoded_with_the_knowledge_bases_spelling():
    matcher = build()
    matcher.wait_ready()
    assert matcher.model_input("digid werkt niet") == "DigiD werkt niet"
    given = matcher._encode(["DigiD werkt niet"])[0]
    itself = matcher.components("digid werkt niet")
    passed = matcher.components("digid werkt niet", vector=given)
    assert np.allclose(itself["knn"], passed["knn"]) and np.allclose(itself["classifier"], passed["classifier"])


@needs_models
@pytest.mark.parametrize("question", ["digid kwijt", "inloggen digid", "digid wachtwoord"])
def test_a_lowercase_acronym_finds_its_item(question):
    matcher = build()
    matcher.wait_ready()
    result = matcher.match(question)
    assert result.ranked[0].item_id == 1, [(c.item_id, c.score) for c in result.ranked]
    assert result.outcome == DIRECT or result.candidates[0].item_id == 1


def test_a_lexical_bot_keeps_no_spelling():
    assert build(use_embeddings=False).spelling == {}
