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


class TopK:
    """Fast per-item top-k mean: rows laid out in an items x longest-item grid when that grid is small
    (np.partition per line, no sort of all rows); the general sort otherwise (very uneven item sizes)."""

    def __init__(self, row_item: np.ndarray, item_starts: np.ndarray, n_rows: int, k: int = 3):
        self.row_item, self.item_starts, self.k = row_item, item_starts, k
        lengths = np.diff(np.append(item_starts, n_rows)) if len(item_starts) else np.zeros(0, dtype=np.int64)
        width = int(lengths.max()) if len(lengths) else 0
        self.grid = None
        if len(lengths) and len(lengths) * width <= 4 * max(n_rows, 1):
            grid = np.full((len(lengths), width), n_rows, dtype=np.int64)  # n_rows points at a padding cell
            offsets = np.arange(n_rows) - item_starts[row_item]
            grid[row_item, offsets] = np.arange(n_rows)
            self.grid = grid
            self.counts = np.minimum(lengths, k).astype(np.float32)

    def mean(self, row_scores: np.ndarray) -> np.ndarray:
        if self.grid is None:
            return topk_mean(row_scores, self.row_item, self.item_starts, self.k)
        padded = np.append(row_scores, np.float32(0.0))[self.grid]  # padding counts 0, never above a real score
        k = min(self.k, padded.shape[1])
        top = np.partition(padded, padded.shape[1] - k, axis=1)[:, -k:]
        return (top.sum(axis=1) / self.counts).astype(np.float32)


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

    def __init__(
        self,
        vectors: np.ndarray,
        labels: np.ndarray,
        n_items: int,
        shrinkage: float = 0.5,
        max_rows: int = 3000,
        column_scale: np.ndarray | None = None,
    ):
        # Memory: a big bot's vectors are most of a process's, so nothing here copies them whole (the build of
        # a 250,000-formulation language peaked at 3 copies). The column scale is linear: it scales the class
        # means and the centred sample, not the vectors.
        d = vectors.shape[1]
        counts = np.bincount(labels, minlength=n_items).astype(np.float32)
        # Class means by sums over runs of equal labels (np.add.at is an order of magnitude slower); the
        # matcher's rows come grouped by item already, other callers' are sorted first.
        grouped, by_item = vectors, labels
        if len(labels) > 1 and np.any(labels[1:] < labels[:-1]):
            order = np.argsort(labels, kind="stable")
            grouped, by_item = vectors[order], labels[order]
        starts = np.flatnonzero(np.r_[True, np.diff(by_item) != 0])
        mu = np.zeros((n_items, d), dtype=np.float32)
        mu[by_item[starts]] = np.add.reduceat(grouped, starts, axis=0)
        del grouped
        mu /= np.maximum(counts, 1)[:, None]
        if column_scale is not None:
            mu *= column_scale
        # The shared covariance is shrunk anyway: a few thousand rows estimate it as well as all of them.
        sample = np.arange(len(labels))
        if len(sample) > max_rows:
            sample = np.random.default_rng(0).choice(len(labels), max_rows, replace=False)
        picked = vectors[sample] if column_scale is None else vectors[sample] * column_scale
        centred = picked - mu[labels[sample]]
        cov = (centred.T @ centred) / max(len(sample), 1)
        scale = float(np.trace(cov)) / d if len(vectors) > n_items else 1.0 / d
        cov = (1.0 - shrinkage) * cov + shrinkage * max(scale, 1e-6) * np.eye(d, dtype=np.float32)
        # W = cov⁻¹ μᵀ, a slice of items at a time in float64: the shrunk covariance is well conditioned, and
        # one solve of every item at once held three float64 copies of the means (1 GB at 50,000 items).
        inverse = np.linalg.inv(cov.astype(np.float64))
        self.W = np.empty((d, n_items), dtype=np.float32)
        self.b = np.empty(n_items, dtype=np.float32)
        for a in range(0, n_items, 1024):
            w = self.W[:, a : a + 1024]
            w[:] = inverse @ mu[a : a + 1024].T.astype(np.float64)
            self.b[a : a + 1024] = -0.5 * np.einsum("dk,kd->k", w, mu[a : a + 1024])
        if column_scale is not None:
            self.W *= column_scale[:, None]  # folded in: logits() takes the raw vector

    def logits(self, x: np.ndarray) -> np.ndarray:
        return x @ self.W + self.b


class SoftmaxRegression:
    """Multinomial logistic regression on formulation vectors, trained by full-batch Adam for a fixed budget.

    Better than the LDA on BANKING77 (it weighs the dimensions that tell this bot's items apart) but
    iterative: its cost grows with formulations x dimensions x items, so the matcher trains it in the
    background on large knowledge bases and uses the LDA until it is ready.

    `column_scale` multiplies each input dimension before training (folded into W afterwards, so `logits`
    takes the raw vector): with Adam a scaled-up part moves the logits faster, the way to let the better
    model's part of a vector weigh more when the budget of steps is small.
    """

    def __init__(
        self,
        vectors: np.ndarray,
        labels: np.ndarray,
        n_items: int,
        iterations: int = 60,
        learning_rate: float = 0.02,
        l2: float = 1e-3,
        scale: float = 8.0,
        column_scale: np.ndarray | None = None,
    ):
        n, d = vectors.shape
        # Unit vectors give tiny logits; scaling the inputs lets Adam reach confident logits in few steps.
        x = vectors * np.float32(scale)
        if column_scale is not None:
            x *= column_scale
        y = np.zeros((n, n_items), dtype=np.float32)
        y[np.arange(n), labels] = 1.0
        w = np.zeros((d, n_items), dtype=np.float32)
        b = np.zeros(n_items, dtype=np.float32)
        mw, vw = np.zeros_like(w), np.zeros_like(w)
        mb, vb = np.zeros_like(b), np.zeros_like(b)
        lr, inv_n = np.float32(learning_rate), np.float32(1.0 / max(n, 1))
        for t in range(1, iterations + 1):
            z = x @ w + b
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = (p - y) * inv_n
            gw = x.T @ g + np.float32(l2) * w
            gb = g.sum(axis=0)
            mw = 0.9 * mw + 0.1 * gw
            vw = 0.999 * vw + 0.001 * gw * gw
            mb = 0.9 * mb + 0.1 * gb
            vb = 0.999 * vb + 0.001 * gb * gb
            c1, c2 = 1.0 - 0.9**t, 1.0 - 0.999**t
            w -= lr * (mw / c1) / (np.sqrt(vw / c2) + 1e-8)
            b -= lr * (mb / c1) / (np.sqrt(vb / c2) + 1e-8)
        self.W = (w * np.float32(scale)).astype(np.float32)
        if column_scale is not None:
            self.W *= column_scale[:, None]
        self.b = b.astype(np.float32)

    @staticmethod
    def cost(n: int, d: int, n_items: int, iterations: int = 60) -> float:
        """Multiply-adds of a training run (two matrix products per iteration)."""
        return 2.0 * n * d * n_items * iterations

    def logits(self, x: np.ndarray) -> np.ndarray:
        return x @ self.W + self.b
