"""Item-level scoring: top-k means over an item's formulations, a per-bot linear classifier, fusion, calibration."""

from __future__ import annotations

import numpy as np


def topk_mean(row_scores: np.ndarray, row_item: np.ndarray, item_starts: np.ndarray, k: int = 3) -> np.ndarray:
    """Mean of each item's `k` best row scores (fewer when it has fewer rows); rows are grouped by item.

    The mean of a few best formulations beats the single best one: one lucky formulation of the wrong
    item weighs less than three good ones of the right item.
    """
    n_items = len(item_starts)
    if n_items == 0:
        return np.zeros(0, dtype=np.float32)
    seg_len = np.diff(np.append(item_starts, len(row_scores)))
    order = np.lexsort((-row_scores, row_item))  # by item, then best first; segments keep their positions
    rank = np.arange(len(order)) - item_starts[row_item[order]]
    top = order[rank < k]
    sums = np.bincount(row_item[top], weights=row_scores[top], minlength=n_items)
    return (sums / np.minimum(seg_len, k)).astype(np.float32)


def zscore(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Standardise over the allowed items only (others get a very low value)."""
    out = np.full(values.shape, -1e3, dtype=np.float32)
    v = values[mask]
    if v.size == 0:
        return out
    sd = float(v.std())
    out[mask] = (v - v.mean()) / (sd if sd > 1e-6 else 1.0)
    return out


def softmax(values: np.ndarray, mask: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    out = np.zeros(values.shape, dtype=np.float32)
    v = values[mask] / temperature
    if v.size == 0:
        return out
    e = np.exp(v - v.max())
    out[mask] = e / e.sum()
    return out


def sigmoid(x: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-x))).astype(np.float32)


class LinearClassifier:
    """Shrinkage LDA on formulation vectors: a per-bot linear classifier with a closed-form fit.

    Trained at build time from the stored vectors (no iterative training, so a rebuild stays well under a
    second for 10k formulations); logits = x @ W + b, one column per item.
    """

    def __init__(self, vectors: np.ndarray, labels: np.ndarray, n_items: int, shrinkage: float = 0.5):
        d = vectors.shape[1]
        counts = np.bincount(labels, minlength=n_items).astype(np.float32)
        mu = np.zeros((n_items, d), dtype=np.float32)
        np.add.at(mu, labels, vectors)
        mu /= np.maximum(counts, 1)[:, None]
        centred = vectors - mu[labels]
        cov = (centred.T @ centred) / max(len(vectors), 1)
        scale = float(np.trace(cov)) / d if len(vectors) > n_items else 1.0 / d
        cov = (1.0 - shrinkage) * cov + shrinkage * max(scale, 1e-6) * np.eye(d, dtype=np.float32)
        self.W = np.linalg.solve(cov.astype(np.float64), mu.T.astype(np.float64)).astype(np.float32)
        self.b = (-0.5 * np.einsum("dk,kd->k", self.W, mu)).astype(np.float32)

    def logits(self, x: np.ndarray) -> np.ndarray:
        return x @ self.W + self.b
