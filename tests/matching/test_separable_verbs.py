"""Dutch splits a separable verb in a main clause: "Hoe vraag ik een paspoort aan?" is "paspoort aanvragen".
Where the knowledge base writes the verb whole, a formulation or an input that splits it is read as the whole
verb (and the particle as part of it), so that either way of asking finds the item written the other way."""

import pytest

from knowledge.matching import FormulationEntry, Matcher, MatcherConfig
from knowledge.matching.analyse import split_verb, whole_verb
from knowledge.matching.lexical import LexicalIndex

BOT = {
    "paspoort aanvragen": ["Hoe vraag ik een paspoort aan?", "Wat kost een nieuw paspoort?"],
    "paspoort kwijt": ["Mijn paspoort is gestolen", "Paspoort verloren, wat nu?"],
    "parkeervergunning": ["Parkeervergunning aanvragen", "Hoe pas ik mijn parkeervergunning aan?"],
    "verhuizing": ["Verhuizing doorgeven", "Ik ga verhuizen"],
    "rijbewijs": ["Rijbewijs verlengen", "Mijn rijbewijs is verlopen"],
}


def build():
    entries = [
        FormulationEntry(id=n, item_id=item, text=text, vector=None)
        for n, (item, text) in enumerate((i, t) for i, (_, texts) in enumerate(BOT.items()) for t in texts)
    ]
    return Matcher.build("nl", entries, [], MatcherConfig(use_embeddings=False, calibrate=False))


ITEMS = list(BOT)


@pytest.mark.parametrize(
    ("question", "item"),
    [
        # The input writes whole what a formulation splits.
        ("paspoort aanvragen", "paspoort aanvragen"),
        ("ik wil mijn paspoort aanvragen", "paspoort aanvragen"),
        # The input splits what a formulation writes whole, conjugated or not.
        ("Hoe geef ik mijn verhuizing door?", "verhuizing"),
        ("Wanneer geeft de gemeente een parkeervergunning af", "parkeervergunning"),
        ("Hoe vraagt u een parkeervergunning aan?", "parkeervergunning"),
    ],
)
def test_a_verb_split_or_whole_finds_the_item_written_the_other_way(question, item):
    assert ITEMS[build().rank(question)[0].item_id] == item


def test_the_split_formulation_takes_the_whole_verb_in_place_of_its_particle():
    index = LexicalIndex(["Hoe vraag ik een paspoort aan?", "Parkeervergunning aanvragen"], "nl")
    row = index.scores(index.analyse("aanvragen"))[0]
    assert row[0] > 0 and row[1] > 0  # both rows say "aanvragen"
    assert index.analyse("Hoe vraag ik een rijbewijs aan").weights.get("aan") is None
    # Without the whole verb in the knowledge base nothing is rejoined: the particle stays a word of its own.
    alone = LexicalIndex(["Hoe vraag ik een paspoort aan?", "Paspoort kwijt"], "nl")
    assert "aan" in alone.term_id and alone.analyse("vraag een paspoort aan").weights.get("aan") == 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hoe vraag ik een paspoort aan?", ("aan", ("hoe", "vraag", "paspoort"))),
        ("Hoe geef ik mijn verhuizing door", ("door", ("hoe", "geef", "verhuizing"))),
        ("Ventilator uit", None),  # two words: a device and its state, no verb to join
        ("Ik woon in Utrecht", None),  # no particle at the end
    ],
)
def test_which_texts_split_a_verb(text, expected):
    assert split_verb(text, "nl") == expected


def test_only_a_verb_the_knowledge_base_knows_whole_is_rejoined_and_never_in_other_languages():
    stems = {"aanvraag", "paspoort"}
    assert whole_verb("aan", ("vraag", "paspoort"), stems, "nl") == (0, "aanvraag")
    assert whole_verb("aan", ("vraagt", "paspoort"), stems, "nl") == (0, "aanvraag")  # "vraagt u ... aan"
    assert whole_verb("aan", ("zet", "lamp"), stems, "nl") is None  # "aanzetten" is not in this knowledge base
    assert split_verb("How do I turn the lights on", "en") is None
    assert split_verb("Comment je mets la carte en", "fr") is None
