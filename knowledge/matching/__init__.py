"""Knowledge matching: finds the knowledge item a person meant (lexical + optional sentence embeddings), no Django."""

from .decide import DIRECT, MISUNDERSTOOD, REWORD, Thresholds
from .embeddings import available as embeddings_available
from .embeddings import embed_formulations
from .language import detect_language
from .matcher import Matcher, MatcherConfig
from .normalise import normalise
from .types import Candidate, FormulationEntry, MatchingGroupDef, MatchResult

__all__ = [
    "DIRECT",
    "MISUNDERSTOOD",
    "REWORD",
    "Candidate",
    "FormulationEntry",
    "MatchResult",
    "Matcher",
    "MatcherConfig",
    "MatchingGroupDef",
    "Thresholds",
    "detect_language",
    "embed_formulations",
    "embeddings_available",
    "normalise",
]
