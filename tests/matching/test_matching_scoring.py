"""Item scoring pieces: per-item top-k means, the per-bot classifiers, background training, concurrent use."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from knowledge.matching import FormulationEntry, Matcher, MatcherConfig
from knowledge.matching.scoring import LinearClassifier, SoftmaxRegression, TopK, topk_mean, zscore


def test_topk_mean_per_item_both_ways_agree():
    rng = np.random.default_rng(0)
    starts = np.array([0, 3, 4, 10])
    row_item = np.repeat(np.arange(4), np.diff(np.append(starts, 15)))
    scores = rng.random(15).astype(np.float32)
    expected = [np.sort(scores[a:b])[::-1][:3].mean() for a, b in zip(starts, [3, 4, 10, 15], strict=True)]
    assert np.allclose(topk_mean(scores, row_item, starts), expected)
    fast = TopK(row_item, starts, 15)
    assert fast.grid is not None
    assert np.allclose(fast.mean(scores), expected)


def _blobs(n_items=4, per_item=20, dim=16, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_items, dim))
    labels = np.repeat(np.arange(n_items), per_item)
    x = centres[labels] + 0.3 * rng.normal(size=(len(labels), dim))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype(np.float32), labels, centres


@pytest.mark.parametrize("cls", [LinearClassifier, SoftmaxRegression])
def test_classifiers_separate_items(cls):
    x, y, centres = _blobs()
    clf = cls(x, y, 4)
    queries = centres / np.linalg.norm(centres, axis=1, keepdims=True)
    assert list(np.argmax(clf.logits(queries.astype(np.float32)), axis=1)) == [0, 1, 2, 3]


@pytest.mark.parametrize("cls", [LinearClassifier, SoftmaxRegression])
def test_column_scale_is_folded_into_the_classifier(cls):
    # Weighing a part of the vectors more changes what the classifier learns, but it still takes raw vectors:
    # training on scaled vectors and scaling the query gives the same logits as scaling inside.
    x, y, centres = _blobs()
    scale = np.ones(x.shape[1], dtype=np.float32)
    scale[8:] = 2.0
    inside = cls(x, y, 4, column_scale=scale)
    outside = cls(x * scale, y, 4)
    queries = (centres / np.linalg.norm(centres, axis=1, keepdims=True)).astype(np.float32)
    assert np.allclose(inside.logits(queries), outside.logits(queries * scale), atol=1e-3)
    assert list(np.argmax(inside.logits(queries), axis=1)) == [0, 1, 2, 3]


ENGLISH = [
    FormulationEntry(1, 1, "How do I activate my card?"),
    FormulationEntry(2, 1, "Activate the new card"),
    FormulationEntry(3, 2, "What is my balance?"),
    FormulationEntry(4, 2, "How much money is left on my account"),
]


def test_english_few_shot_classifier_leans_on_minilm():
    from knowledge.matching import embeddings

    assert embeddings.uses_minilm("en"), "the English MiniLM is part of the default configuration"
    m = Matcher.build("en", ENGLISH, config=MatcherConfig(use_embeddings=True))
    assert m.regime == "few" and m.fusion.minilm > 1.0
    scale = m.column_scale()
    assert scale is not None and scale[0] == 1.0 and scale[-1] == m.fusion.minilm
    assert m.match("activate my card please").best.item_id == 1
    # French bots have no MiniLM part: nothing to weigh.
    assert Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=True)).column_scale() is None


FR = [
    FormulationEntry(1, 1, "Comment activer ma carte ?"),
    FormulationEntry(2, 1, "Activation de la carte bancaire"),
    FormulationEntry(3, 2, "Quel est le solde de mon compte ?"),
    FormulationEntry(4, 2, "Combien reste-t-il sur mon compte"),
    FormulationEntry(5, 3, "Je veux changer mon adresse"),
    FormulationEntry(6, 3, "Nouvelle adresse postale"),
]


def test_classifier_trains_in_the_background_past_the_sync_budget():
    m = Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=True, sync_training_cost=0))
    assert isinstance(m.classifier, (LinearClassifier, SoftmaxRegression))
    assert m.match("solde de mon compte").best.item_id == 2  # usable at once, with the LDA
    assert m.wait_ready(timeout=30)
    assert isinstance(m.classifier, SoftmaxRegression)
    assert m.match("solde de mon compte").best.item_id == 2


def test_small_knowledge_base_trains_synchronously():
    m = Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=True))
    assert m.ready.is_set()
    assert isinstance(m.classifier, SoftmaxRegression)


@pytest.mark.parametrize("use_embeddings", [False, True], ids=["lexical", "default"])
def test_concurrent_matches_give_the_same_answers(use_embeddings):
    m = Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=use_embeddings))
    inputs = ["activer carte", "solde compte", "changer adresse", "bonjour", "nouvelle adresse"] * 8
    alone = [m.match(t) for t in inputs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(m.match, inputs))
    assert [(r.outcome, [c.item_id for c in r.candidates]) for r in together] == [
        (r.outcome, [c.item_id for c in r.candidates]) for r in alone
    ]


def test_regime_follows_formulations_per_item():
    few = Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=False))
    assert few.regime == "few"
    many_entries = [FormulationEntry(i, i % 2, f"phrase numero {i} sur le sujet {i % 2}") for i in range(60)]
    many = Matcher.build("fr", many_entries, config=MatcherConfig(use_embeddings=False))
    assert many.regime == "many"
    assert few.fusion != many.fusion
    pinned = Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=False, fusion_weights={"lex_top": 1.0}))
    assert pinned.fusion.weights == {"lex_top": 1.0}
    with pytest.raises(ValueError, match="unknown evidence"):
        Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=False, fusion_weights={"votes": 1.0}))


def test_fusion_weighs_only_the_named_evidence():
    # Only the lexical top-3 is weighed: the fused evidence is its z-score, the centroid plays no part.
    m = Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=False, fusion_weights={"lex_top": 1.0}))
    mask = np.ones(len(m.item_ids), dtype=bool)
    parts = m.components("activer ma carte")
    assert np.allclose(m.fuse(parts, mask), zscore(parts["lex_top"], mask))
    mask[0] = False  # an excluded item is never preferred, whatever the evidence
    assert m.fuse(parts, mask)[0] < m.fuse(parts, mask)[mask].min()


def test_few_shot_layouts_have_their_own_evidence():
    """French bots (USE alone) and English ones (USE + MiniLM) weigh the evidence each layout has: both
    keep the LDA beside the regression and read each model's best formulation."""
    from knowledge.matching import embeddings

    fr = Matcher.build("fr", FR, config=MatcherConfig(use_embeddings=True))
    assert fr.layout == "use" and fr.regime == "few"
    assert isinstance(fr.lda, LinearClassifier) and isinstance(fr.classifier, SoftmaxRegression)
    parts = fr.components("solde de mon compte")
    assert {"classifier", "lda", "use_top", "use_max", "lex_top"} <= set(parts)
    assert "minilm_max" not in parts
    # The best USE formulation of each item is its own formulations' highest cosine.
    q = embeddings.encode(["solde de mon compte"], "fr")[0]
    cos = fr.vectors @ q
    assert np.allclose(parts["use_max"], [cos[0:2].max(), cos[2:4].max(), cos[4:6].max()], atol=1e-5)
    assert fr.match("solde de mon compte").best.item_id == 2
    if embeddings.uses_minilm("en"):
        en = Matcher.build("en", ENGLISH, config=MatcherConfig(use_embeddings=True))
        assert en.layout == "use+minilm" and en.fusion != fr.fusion
        assert {"minilm_top", "minilm_max"} <= set(en.components("what is my balance"))
        alone = Matcher.build("en", ENGLISH, config=MatcherConfig(use_embeddings=True, english_model=False))
        assert alone.layout == "use" and alone.vectors.shape[1] == embeddings.USE_DIM
        assert alone.match("what is my balance").best.item_id == 2
