"""Spelling tolerance and matching groups (nested references, cycles, unknown groups)."""

from knowledge.matching import (
    FormulationEntry,
    Matcher,
    MatcherConfig,
    MatchingGroupDef,
)
from knowledge.matching.groups import GroupExpander, plain_text
from knowledge.matching.spelling import SpellIndex, edit_distance, max_edits

LEXICAL = MatcherConfig(use_embeddings=False)


def test_edit_budget_grows_with_length():
    assert [max_edits(n) for n in (2, 3, 4, 7, 8, 12)] == [0, 0, 1, 1, 2, 2]


def test_edit_distance_counts_transpositions_once():
    assert edit_distance("carte", "crate", 2) == 1
    assert edit_distance("virement", "virment", 2) == 1
    assert edit_distance("abc", "xyz", 1) == 2  # above the limit: limit + 1


def test_spell_index_corrections():
    idx = SpellIndex(["virement", "carte", "adresse", "rembourser", "pin"])
    assert idx.corrections("virment") == (("virement", 1),)
    assert idx.corrections("cartte") == (("carte", 0),)  # a doubled letter is free
    assert idx.corrections("remboursre") == (("rembourser", 1),)
    assert idx.corrections("rembrouser") == (("rembourser", 2),)
    assert idx.corrections("rmebourer") == (("rembourser", 2),)  # long word: two edits allowed
    assert idx.corrections("adrsese") == (("adresse", 1),)
    assert idx.corrections("pan") == ()  # words under 4 letters are never corrected
    assert idx.corrections("crate") == (("carte", 1),)
    assert idx.corrections("xxxxxxx") == ()
    assert idx.corrections("carte") == ()  # known words need no correction


def test_misspelt_input_still_matches():
    m = Matcher.build(
        "fr",
        [
            FormulationEntry(1, 10, "Comment faire un virement international ?"),
            FormulationEntry(2, 20, "Où trouver mon relevé de compte ?"),
        ],
        config=LEXICAL,
    )
    res = m.match("comment faire un virment internationnal")
    assert res.outcome == "direct"
    assert res.candidates[0].item_id == 10
    assert m.rank("ou trouvr mon releve de conpte")[0].item_id == 20


def test_nested_groups_and_cycles():
    groups = [
        MatchingGroupDef("activer", ["activer", "mettre en service", "{Débloquer}"]),
        MatchingGroupDef("débloquer", ["débloquer", "déverrouiller", "{ACTIVER}"]),  # cycle back to activer
    ]
    ex = GroupExpander(groups)
    assert set(ex.members("Activer")) == {
        "activer",
        "mettre en service",
        "débloquer",
        "déverrouiller",
    }
    assert set(ex.expand("comment {activer} ma carte")) == {
        "comment activer ma carte",
        "comment mettre en service ma carte",
        "comment débloquer ma carte",
        "comment déverrouiller ma carte",
    }
    # a group that only references itself expands to nothing and ends
    assert GroupExpander([MatchingGroupDef("loop", ["{loop}"])]).members("loop") == []


def test_unknown_group_reference_stands_for_its_name():
    ex = GroupExpander([])
    assert ex.expand("ouvrir un {compte joint}") == ["ouvrir un compte joint"]
    assert plain_text("comment {activer} ma {carte}") == "comment activer ma carte"


def test_group_product_is_capped_but_covers_every_member():
    big = MatchingGroupDef("n", [f"mot{i}" for i in range(30)])
    ex = GroupExpander([big], max_variants=50)
    variants = ex.expand("{n} et {n}")  # 900 combinations > 50
    assert len(variants) <= 50
    for i in range(30):
        assert any(f"mot{i}" in v for v in variants)


def test_formulation_with_group_matches_every_member():
    groups = [
        MatchingGroupDef("activer", ["activer", "mettre en service", "{débloquer}"]),
        MatchingGroupDef("débloquer", ["débloquer", "déverrouiller"]),
    ]
    m = Matcher.build(
        "fr",
        [
            FormulationEntry(1, 10, "comment {activer} ma carte"),
            FormulationEntry(2, 20, "comment changer mon adresse"),
            FormulationEntry(3, 30, "quel est le solde de mon compte"),
        ],
        groups,
        LEXICAL,
    )
    for q in (
        "comment activer ma carte",
        "comment mettre en service ma carte",
        "comment déverrouiller ma carte",
    ):
        res = m.match(q)
        assert res.outcome == "direct", q
        assert res.candidates[0].item_id == 10
        assert res.candidates[0].formulation_id == 1
        assert res.candidates[0].formulation_text == "comment {activer} ma carte"
    assert m.match("comment déverrouiller ma carte").candidates[0].matched_text == "comment déverrouiller ma carte"
