"""The matcher: built once per (bot, language) from formulations and groups, then ranks inputs and decides."""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from . import calibration, casing, embeddings, heap, workers
from .decide import CALIBRATION, COSTS, FUSION, TUNED, Fusion, Thresholds, decide
from .groups import GroupExpander
from .lexical import LexicalIndex
from .normalise import normalise
from .polarity import poles, stance, subject
from .scoring import LinearClassifier, SoftmaxRegression, TopK, sigmoid, softmax, zscore
from .topic import says_nothing_of, vague_topic
from .types import Candidate, FormulationEntry, MatchingGroupDef, MatchResult

Allowed = None | set[int] | frozenset[int] | Callable[[int], bool]
PER_MODEL_EVIDENCE = {"use_top", "use_max", "minilm_top", "minilm_max"}
logger = logging.getLogger(__name__)
# A process's background trainings (classifiers, calibrations) run one at a time: each holds a second index and
# the temporaries of its fit, and a bot's languages built together (French, then English) ran theirs at once,
# adding their peaks (bench/INDEX_FILES.md); the cores are the talks' meanwhile anyway.
_BACKGROUND = threading.Lock()


@dataclass
class MatcherConfig:
    """Settings of one matcher. Thresholds left as None take the tuned defaults of the configuration.

    use_embeddings switches between the default configuration (lexical + sentence embeddings)
    and lexical-only; it defaults to whether the model package is importable (see embeddings.available).
    """

    use_embeddings: bool = field(default_factory=embeddings.available)
    direct_threshold: float | None = None
    reword_threshold: float | None = None
    direct_margin: float | None = None
    reword_window: float | None = None
    spelling: bool = True
    # Only the start of a long input is read (the product reads 600 characters).
    max_input_chars: int = 600
    max_group_variants: int = 256
    # Weights of the ranking evidence (z-scores over the bot's items, names in decide.EVIDENCE). None: the
    # weights tuned on the benchmark's held-out part for the configuration, the knowledge base's regime and
    # the vector layout (decide.FUSION); the regime is "few" when the median item has at most
    # `few_shot_limit` formulations.
    fusion_weights: dict[str, float] | None = None
    minilm_weight: float | None = None
    # English bots add the English MiniLM model to USE; off, they use USE alone like other languages.
    english_model: bool = True
    few_shot_limit: int = 12
    # LDA shrinkage towards a spherical covariance: more helps with few formulations per item.
    shrinkage: float = 0.5
    # The softmax regression replaces the LDA once trained: synchronously when its cost (multiply-adds) is
    # under `sync_training_cost` (about 0.1 s here), else in a background thread (the LDA serves meanwhile);
    # never above `max_training_cost` (minutes of CPU), where the LDA stays.
    refine_classifier: bool = True
    sync_training_cost: float = 2e9
    max_training_cost: float = 2e12
    # Per-bot decisions: the score calibration and the Direct / Reword thresholds fitted on the bot's own
    # formulations at build (calibration.py), blended with the priors (decide.py) while the bot is small.
    # Thresholds set above stay as set. Up to `sync_calibration_rows` rows (and when the classifier trains
    # here) it runs inside the build, otherwise in the background after the classifier (the priors serve).
    calibrate: bool = True
    sync_calibration_rows: int = 5000

    @property
    def mode(self) -> str:
        return "embeddings" if self.use_embeddings else "lexical"

    @property
    def calibrates(self) -> bool:
        """Whether the per-bot calibration runs. Lexical-only keeps the priors: fitted on held-out formulations
        its thresholds rejected out-of-scope questions but also 12-43 % of answerable ones on the development
        sets (bench/MATCHING.md), and the demo bot lost the rewordings of « carte » and answered its own
        formulation « J'ai perdu ma carte » with a rewording."""
        return self.calibrate and self.use_embeddings

    def fusion(self, regime: str, layout: str) -> Fusion:
        base = FUSION[(self.mode, regime, layout)]
        return Fusion(
            weights=dict(base.weights if self.fusion_weights is None else self.fusion_weights),
            minilm=base.minilm if self.minilm_weight is None else self.minilm_weight,
        )

    def thresholds(self) -> Thresholds:
        base = TUNED[self.mode]
        return Thresholds(
            direct=base.direct if self.direct_threshold is None else self.direct_threshold,
            reword=base.reword if self.reword_threshold is None else self.reword_threshold,
            margin=base.margin if self.direct_margin is None else self.direct_margin,
            window=base.window if self.reword_window is None else self.reword_window,
        )


class Matcher:
    """Read-only after `build`: `match` and `rank` may be called from many threads at once."""

    def __init__(self, language: str, config: MatcherConfig):
        self.language = language
        self.config = config
        self.thresholds = config.thresholds()
        self.entries: list[FormulationEntry] = []
        self.row_entry = np.zeros(0, dtype=np.int32)  # row -> index in entries
        self.row_text: list[str] = []
        self.item_ids = np.zeros(0, dtype=np.int64)  # item index -> item id
        self.item_starts = np.zeros(0, dtype=np.int64)  # first row of each item (rows grouped by item)
        self.row_item = np.zeros(0, dtype=np.int32)  # row -> item index
        self.lexical: LexicalIndex | None = None
        self.vectors: np.ndarray | None = None  # entry vectors, float32, L2-normalised per model
        self.n_parts = 1  # models in a vector (USE, + MiniLM for English): cosines are averaged over them
        self.classifier: LinearClassifier | SoftmaxRegression | None = None
        self.lda: LinearClassifier | None = None  # kept beside the regression when the fusion weighs it
        self.ready = threading.Event()  # set once the final classifier is in place
        self._trainer: threading.Thread | None = None
        self.calibration = CALIBRATION[config.mode]
        self.regime = "many"
        self.layout = self._layout()
        self.fusion = config.fusion(self.regime, self.layout)
        self.topk = TopK(self.row_item, self.item_starts, 0)
        self.computed_vectors = 0  # how many vectors `build` had to compute (the rest came stored)
        self.calibrated: calibration.Fitted | None = None  # set once the per-bot calibration is in place
        self.spelling: dict[str, str] = {}  # how the knowledge base writes its words, for the encoder (casing.py)

    # ----------------------------------------------------------------- building
    @classmethod
    def build(
        cls,
        language: str,
        entries: Iterable[FormulationEntry],
        groups: Iterable[MatchingGroupDef] = (),
        config: MatcherConfig | None = None,
        vectors: np.ndarray | None = None,
    ) -> Matcher:
        """Index `entries` (one language) with `groups`; stored vectors are reused, missing ones computed.
        `vectors`: the entries' vectors decoded already, one row per entry in the order of `entries` sorted by
        (item, id) (the calibration's second index gets its bot's, not a stored copy of each to decode)."""
        config = config or MatcherConfig()
        if config.use_embeddings and not embeddings.available():
            # Asked for embeddings on a machine without the model package (or with MATCHING_EMBEDDINGS=off):
            # serve lexical-only rather than fail every request.
            logger.warning("matching: embeddings unavailable, building a lexical-only index")
            config = replace(config, use_embeddings=False)
        m = cls(language, config)
        groups = list(groups)  # read twice: here and by the calibration's index
        m.entries = sorted(entries, key=lambda e: (e.item_id, e.id))
        expander = GroupExpander(groups, max_variants=config.max_group_variants)
        row_entry: list[int] = []
        row_text: list[str] = []
        item_ids: list[int] = []
        item_starts: list[int] = []
        for i, e in enumerate(m.entries):
            if not item_ids or item_ids[-1] != e.item_id:
                item_ids.append(e.item_id)
                item_starts.append(len(row_text))
            for variant in expander.expand(e.text):
                row_entry.append(i)
                row_text.append(variant)
        m.row_entry = np.asarray(row_entry, dtype=np.int32)
        entry_item = np.searchsorted(np.asarray(item_ids, dtype=np.int64), [e.item_id for e in m.entries])
        m.row_item = entry_item.astype(np.int32)[m.row_entry] if len(row_entry) else np.zeros(0, dtype=np.int32)
        m.row_text = row_text
        m.item_ids = np.asarray(item_ids, dtype=np.int64)
        m.item_starts = np.asarray(item_starts, dtype=np.int64)
        if item_ids:
            per_item = np.bincount(entry_item, minlength=len(item_ids))
            m.regime = "few" if float(np.median(per_item)) <= config.few_shot_limit else "many"
            m.fusion = config.fusion(m.regime, m.layout)
        m.topk = TopK(m.row_item, m.item_starts, len(row_text))
        m.lexical = LexicalIndex(row_text, language, spelling=config.spelling, row_item=m.row_item)
        if config.use_embeddings and m.entries:
            m.spelling = casing.spellings(e.text for e in m.entries)
            m._load_vectors(vectors)
            if len(item_ids) > 1:
                labels = entry_item.astype(np.int64)
                cost = SoftmaxRegression.cost(len(labels), m.vectors.shape[1], len(item_ids))
                interim = not config.refine_classifier or cost > config.sync_training_cost
                if interim or m.fusion.weight("lda"):
                    lda = LinearClassifier(
                        m.vectors, labels, len(item_ids), shrinkage=config.shrinkage, column_scale=m.column_scale()
                    )
                    if m.fusion.weight("lda"):
                        m.lda = lda
                    if interim:
                        # The LDA serves while the regression trains in the background, or for good when too costly.
                        m.classifier = lda
                m._refine(labels, len(item_ids), cost)
        if config.calibrates and len(item_ids) > 1:
            m._calibrate(groups)
        if m._trainer is None:
            m._final()
        return m

    def _final(self) -> None:
        """The final classifier and calibration are in place: say so, once the memory the build freed is
        given back to the system."""
        heap.release_after(len(self.row_text))
        self.ready.set()

    def _calibrate(self, groups: list[MatchingGroupDef]) -> None:
        """Fit this bot's calibration and thresholds (calibration.fit): here on a small bot whose classifier
        is final, else in the background after the classifier (which then sets `ready`)."""

        def run() -> None:
            try:
                fitted = calibration.fit(self, groups)
            except Exception:  # a failed calibration leaves the priors, it must not break the bot
                logger.exception("matching: calibration failed, the priors serve")
                return
            if fitted is None:
                return
            cfg = self.config
            thresholds = replace(
                fitted.thresholds,
                direct=fitted.thresholds.direct if cfg.direct_threshold is None else cfg.direct_threshold,
                reword=fitted.thresholds.reword if cfg.reword_threshold is None else cfg.reword_threshold,
            )
            # A talk at this very moment may read the new calibration with the old thresholds: one decision
            # made half with the priors, never an error.
            self.calibration, self.thresholds, self.calibrated = fitted.calibration, thresholds, fitted

        trainer = self._trainer
        if trainer is None and len(self.row_text) <= self.config.sync_calibration_rows:
            run()
            return

        def after() -> None:
            try:
                if trainer is not None:
                    trainer.join()
                with _BACKGROUND:
                    run()
            finally:
                self._final()

        self._trainer = threading.Thread(target=after, name="matcher-calibration", daemon=True)
        self._trainer.start()

    def _refine(self, labels: np.ndarray, n_items: int, cost: float) -> None:
        """Train the softmax regression (`cost` multiply-adds): here, in the background, or not at all."""
        cfg = self.config
        if not cfg.refine_classifier or cost > cfg.max_training_cost:
            return

        def train() -> None:
            try:
                # One attribute assignment: a concurrent match() sees either classifier, never half of one.
                self.classifier = SoftmaxRegression(self.vectors, labels, n_items, column_scale=self.column_scale())
            finally:
                if not (cfg.calibrates and n_items > 1):  # else the calibration, which follows, sets it
                    self._final()

        def train_in_turn() -> None:
            with _BACKGROUND:
                train()

        if cost <= cfg.sync_training_cost:
            train()
        else:
            self._trainer = threading.Thread(target=train_in_turn, name="matcher-classifier", daemon=True)
            self._trainer.start()

    def column_scale(self) -> np.ndarray | None:
        """Per-dimension weight of the classifier's inputs: the MiniLM part weighs `fusion.minilm`."""
        if self.n_parts < 2 or self.vectors is None or self.fusion.minilm == 1.0:
            return None
        scale = np.ones(self.vectors.shape[1], dtype=np.float32)
        scale[embeddings.USE_DIM :] = self.fusion.minilm
        return scale

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the final classifier is trained (immediate unless it trains in the background)."""
        return self.ready.wait(timeout)

    def _layout(self) -> str:
        if not self.config.use_embeddings:
            return "lexical"
        return "use+minilm" if self._with_minilm() else "use"

    def _with_minilm(self) -> bool:
        return self.config.english_model and embeddings.uses_minilm(self.language)

    def _encode(self, texts: list[str]) -> np.ndarray:
        return embeddings.encode(texts, self.language, with_minilm=self._with_minilm())

    def model_input(self, text: str) -> str:
        """An input as the encoder is given it: the words this knowledge base writes with capitals or accents
        written its way ("digid" -> "DigiD", "deja" -> "déjà"). A caller that encodes inputs itself (and passes
        `vector`) encodes this."""
        return casing.respelled(text[: self.config.max_input_chars], self.spelling)

    def _load_vectors(self, decoded: np.ndarray | None = None) -> None:
        both = self._with_minilm()
        self.n_parts = 2 if both else 1
        width = embeddings.USE_DIM + (embeddings.MINILM_DIM if both else 0)
        if decoded is not None:
            # Given rows that do not fit are the caller's mistake: said, not every vector silently encoded again.
            if decoded.shape != (len(self.entries), width):
                raise ValueError(f"vectors of shape {decoded.shape} for {len(self.entries)} entries of width {width}")
            self.vectors = decoded
        else:
            vecs = np.zeros((len(self.entries), width), dtype=np.float32)
            missing: list[int] = []
            for i, e in enumerate(self.entries):
                v = embeddings.from_bytes(e.vector, self.language, with_minilm=both)
                if v is None:
                    missing.append(i)
                else:
                    vecs[i] = v
            if missing:
                vecs[missing] = self._encode([self.entries[i].text for i in missing])
            self.computed_vectors = len(missing)
            self.vectors = vecs
        # Decoded, the stored bytes are dead weight: kept in the entries they were a third of an index's memory.
        self.entries = [e if e.vector is None else replace(e, vector=None) for e in self.entries]

    @property
    def size(self) -> int:
        """Number of formulations indexed."""
        return len(self.entries)

    # ----------------------------------------------------------------- storing (stored.py)
    def __getstate__(self) -> dict:
        """What a stored index keeps: a final index (its classifier and calibration in place), the entries as
        columns (a quarter of a million entry objects took most of a stored index's reading time)."""
        if not self.ready.is_set():
            raise ValueError("an index is stored once its classifier and calibration are final")
        state = dict(self.__dict__)
        del state["ready"], state["_trainer"]
        state["entries"] = EntryTable.of(self.entries)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._trainer = None
        self.ready = threading.Event()
        self.ready.set()

    # ----------------------------------------------------------------- querying
    def item_scores(
        self, text: str, mask: np.ndarray | None = None, *, evidence: tuple | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(calibrated score per item in 0..1, score per row for picking each item's best formulation).

        `mask` (bool per item) restricts the items that may be returned; others score 0.
        """
        if len(self.item_ids) == 0 or not normalise(text[: self.config.max_input_chars], self.language):
            # Nothing to read (empty, spaces, punctuation): no item may be proposed.
            return np.zeros(len(self.item_ids), dtype=np.float32), np.zeros(len(self.row_text), dtype=np.float32)
        # The evidence is weighed among all the bot's items, then the excluded ones are dropped: an item that
        # remains after its better rival was excluded keeps the modest score it had, instead of inheriting
        # the rival's share (the decision is still made on the allowed items only).
        evidence = evidence or self.evidence(text)
        share, similarity, rows = evidence[:3]
        if mask is None:
            mask = np.ones(len(self.item_ids), dtype=bool)
        c = self.calibration
        z = c.share * share + c.similarity * similarity + c.bias
        if c.centroid:
            # Evidence made elsewhere (dialogs/learning/) may come without the centroid cosines: read them here.
            centroid = evidence[4] if len(evidence) > 4 else self._centroid(text)
            z = z + c.centroid * centroid
        scores = sigmoid(z)
        scores[~mask] = 0.0
        # An input with nothing in common with an item (no shared word, no similarity) never proposes it.
        scores[similarity <= 0.0] = 0.0
        return scores, rows

    def components(
        self, text: str, vector: np.ndarray | None = None, evidence: Iterable[str] | None = None
    ) -> dict[str, np.ndarray]:
        """The raw evidence per item (decide.EVIDENCE: those the fusion weighs, or those named in `evidence`),
        plus `similarity` (best formulation) and `rows` (per-row score). `vector` is the input's embedding
        when the caller already has it (else it is computed)."""
        with workers.query():
            return self._components(text, vector, evidence)

    def _components(self, text: str, vector: np.ndarray | None, evidence: Iterable[str] | None):
        wanted = {n for n, w in self.fusion.weights.items() if w} if evidence is None else set(evidence)
        text = text[: self.config.max_input_chars]
        lex_rows, lex_centroid = self.lexical.scores(self.lexical.analyse(text))
        out = {"lex_top": self.topk.mean(lex_rows), "lex_centroid": lex_centroid}
        if self.vectors is None:
            out["rows"] = lex_rows
        else:
            q = self._encode([self.model_input(text)])[0] if vector is None else vector
            if wanted & PER_MODEL_EVIDENCE:
                # One cosine per model part (USE, then MiniLM for English); the vector's cosine is their sum.
                cuts = [0, embeddings.USE_DIM, self.vectors.shape[1]][: self.n_parts + 1]
                parts = [workers.matvec(self.vectors[:, a:b], q[a:b]) for a, b in itertools.pairwise(cuts)]
                cosine = sum(parts)
                for name, cos in zip(("use", "minilm"), parts, strict=False):
                    rows = cos[self.row_entry]
                    out[f"{name}_top"] = self.topk.mean(rows)
                    out[f"{name}_max"] = np.maximum.reduceat(rows, self.item_starts)
            else:
                # One product over both models' parts: a product per model costs a third more on large indexes.
                cosine = workers.matvec(self.vectors, q)
            emb_rows = (np.clip(cosine, 0.0, None) / self.n_parts)[self.row_entry]
            out["knn"] = self.topk.mean(emb_rows)
            classifier = self.classifier  # read once: the background trainer may swap it
            if classifier is not None:
                out["classifier"] = classifier.logits(q)
            if self.lda is not None and "lda" in wanted:
                out["lda"] = self.lda.logits(q)
            out["rows"] = (0.75 * emb_rows + 0.25 * lex_rows).astype(np.float32)
        out["similarity"] = np.maximum.reduceat(out["rows"], self.item_starts)
        return out

    def _centroid(self, text: str) -> np.ndarray:
        return self.lexical.scores(self.lexical.analyse(text[: self.config.max_input_chars]))[1]

    def fuse(self, parts: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        """Weighted sum of z-scores (over the items of `mask`) of the ranking evidence; evidence this
        index cannot give (no classifier with a single item, no vectors in lexical-only) is left out."""
        fused = np.zeros(len(self.item_ids), dtype=np.float32)
        for name, weight in self.fusion.weights.items():
            if weight and name in parts:
                fused += np.float32(weight) * zscore(parts[name], mask)
        fused[~mask] = -1e3
        return fused

    def evidence(self, text: str, mask: np.ndarray | None = None, vector: np.ndarray | None = None):
        """(share, similarity, rows, mask, centroid): each item's share of the fused ranking evidence among the
        items of `mask` (softmax, sums to 1), its absolute similarity (best formulation), per-row scores, its
        lexical centroid cosine. `vector`: the input's embedding when the caller has it."""
        if mask is None:
            mask = np.ones(len(self.item_ids), dtype=bool)
        parts = self.components(text, vector)
        return softmax(self.fuse(parts, mask), mask), parts["similarity"], parts["rows"], mask, parts["lex_centroid"]

    def _mask(self, allowed: Allowed) -> np.ndarray | None:
        if allowed is None:
            return None
        accept = _acceptor(allowed)
        return np.fromiter((accept(int(i)) for i in self.item_ids), dtype=bool, count=len(self.item_ids))

    def rank(
        self, text: str, allowed: Allowed = None, k: int = 10, *, evidence: tuple | None = None
    ) -> list[Candidate]:
        """The `k` best items for `text`, one candidate each, best first, restricted to `allowed`;
        `evidence` is this text's evidence() when the caller already has it."""
        mask = self._mask(allowed)
        if mask is not None and not mask.any():
            return []
        items, rows = self.item_scores(text, mask, evidence=evidence)
        if items.size == 0 or k <= 0:
            return []
        top = np.argsort(-items, kind="stable")[:k]
        return [self._candidate(int(i), float(items[i]), rows) for i in top if items[i] > 0.0]

    def _item_rows(self, idx: int) -> tuple[int, int]:
        """The rows (formulations and their group variants) of the item at index `idx`: [start, end)."""
        start = int(self.item_starts[idx])
        end = int(self.item_starts[idx + 1]) if idx + 1 < len(self.item_starts) else len(self.row_text)
        return start, end

    def _candidate(self, idx: int, score: float, rows: np.ndarray) -> Candidate:
        start, end = self._item_rows(idx)
        row = start + int(np.argmax(rows[start:end]))
        entry = self.entries[int(self.row_entry[row])]
        return Candidate(
            item_id=entry.item_id,
            score=round(min(1.0, max(0.0, score)), 4),
            formulation_id=entry.id,
            formulation_text=entry.text,
            matched_text=self.row_text[row],
        )

    def match(
        self, text: str, allowed: Allowed = None, max_rewords: int = 3, *, evidence: tuple | None = None
    ) -> MatchResult:
        """Rank `text` among the allowed items and decide Direct / Reword / Misunderstood."""
        ranked = self.rank(text, allowed=allowed, k=max(3, max_rewords), evidence=evidence)
        said = normalise(text[: self.config.max_input_chars], self.language)
        # A vague input ("problème carte") is offered the items of its subject (topic.py), never one at once.
        shared = None
        if ranked:
            shared = vague_topic(
                self.lexical, text[: self.config.max_input_chars], lambda: self._mask(allowed), ranked[0].matched_text
            )
        topic = None if shared is None else frozenset(int(self.item_ids[i]) for i in shared)
        outcome, candidates = decide(
            ranked,
            self.thresholds,
            max_rewords=max_rewords,
            costs=COSTS[self.config.mode],
            topic=topic,
            written=self._written(said, ranked),
            stances=self._stances(text[: self.config.max_input_chars], ranked),
            unrelated=bool(ranked) and self._unrelated(text[: self.config.max_input_chars], ranked[0]),
        )
        return MatchResult(
            outcome=outcome, candidates=candidates, ranked=ranked, normalised=said, language=self.language
        )

    def _stances(self, text: str, ranked: list[Candidate]) -> dict[int, int]:
        """item id -> how each ranked item stands to the actions `text` asks for (polarity.stance); read only
        when the input asks for one (most talks pay one pass over their words)."""
        asked = poles(text, self.language)
        if not asked:
            return {}
        about = subject(text, self.language)
        out = {}
        for c in ranked:
            start, end = self._item_rows(int(np.searchsorted(self.item_ids, c.item_id)))
            out[c.item_id] = stance(asked, self.row_text[start:end], self.language, about)
        return out

    def _unrelated(self, text: str, best: Candidate) -> bool:
        """Whether the input names no subject and has nothing in common with the best item (topic.says_nothing_of)."""

        def formulations() -> list[str]:
            start, end = self._item_rows(int(np.searchsorted(self.item_ids, best.item_id)))
            return self.row_text[start:end]

        return says_nothing_of(text, formulations, self.language)

    def _written(self, said: str, ranked: list[Candidate]) -> bool:
        """Whether the input (`said`, normalised) is one of the best item's formulations, word for word, and none
        of another ranked one."""
        if not ranked or not said or normalise(ranked[0].matched_text, self.language) != said:
            return False
        return all(normalise(c.matched_text, self.language) != said for c in ranked[1:])

    def read(self, text: str) -> tuple | None:
        """The input's evidence (what the models and the lexical index say of it, weighed among all the
        items), for callers that match it against several allowed sets; None when there is nothing to read."""
        if len(self.item_ids) and normalise(text[: self.config.max_input_chars], self.language):
            return self.evidence(text)
        return None

    def match_first(
        self, text: str, allowed_in_turn: list[Allowed], max_rewords: int = 3, *, evidence: tuple | None = None
    ) -> MatchResult:
        """The first Direct result among the allowed sets tried in turn (a decision tree's follow-ups,
        then the whole knowledge base), else the last one's result. The input's evidence does not depend
        on the set (it is weighed among all the items), so it is computed once (or given: read()): with
        embeddings, a talk in a decision tree used to run the models twice."""
        if evidence is None:
            evidence = self.read(text)
        result = None
        for allowed in allowed_in_turn:
            result = self.match(text, allowed=allowed, max_rewords=max_rewords, evidence=evidence)
            if result.outcome == "direct":
                break
        return result


class EntryTable(Sequence[FormulationEntry]):
    """A read index's formulations as columns (ids, item ids, texts); an entry is made when asked for."""

    __slots__ = ("ids", "item_ids", "texts")

    def __init__(self, ids: np.ndarray, item_ids: np.ndarray, texts: list[str]):
        self.ids, self.item_ids, self.texts = ids, item_ids, texts

    @classmethod
    def of(cls, entries: Sequence[FormulationEntry]) -> EntryTable:
        if isinstance(entries, EntryTable):
            return entries
        return cls(
            np.fromiter((e.id for e in entries), dtype=np.int64, count=len(entries)),
            np.fromiter((e.item_id for e in entries), dtype=np.int64, count=len(entries)),
            [e.text for e in entries],
        )

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return FormulationEntry(id=int(self.ids[index]), item_id=int(self.item_ids[index]), text=self.texts[index])

    def __getstate__(self):
        return (self.ids, self.item_ids, self.texts)

    def __setstate__(self, state) -> None:
        self.ids, self.item_ids, self.texts = state


def _acceptor(allowed: Allowed) -> Callable[[int], bool] | None:
    if allowed is None:
        return None
    if callable(allowed):
        return allowed
    allowed_set = allowed if isinstance(allowed, (set, frozenset)) else set(allowed)
    return allowed_set.__contains__
