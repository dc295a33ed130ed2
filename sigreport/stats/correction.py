"""Multiple-comparison corrections of a family of p-values.

Definitions as in R's ``p.adjust`` (Holm 1979; Hochberg 1988; Hommel 1988; Benjamini & Hochberg
1995; Benjamini & Yekutieli 2001); tests compare against ``p.adjust`` output.
"""

from __future__ import annotations

import numpy as np

METHODS = ("none", "bonferroni", "holm", "hochberg", "hommel", "fdr_bh", "fdr_by")


def _hommel_sorted(p: np.ndarray) -> np.ndarray:
    """Hommel (1988) adjusted p-values of ascending ``p`` (m >= 3), as R's ``p.adjust``.

    R 4.x ``p.adjust(method = "hommel")``: start from min_i m p_(i) / i; for each subfamily size
    j = m - 1, ..., 2 the first m - j + 1 hypotheses get min(j p_(i), q1) and the remaining ones
    q1 = min_{l = 2..j} j p_(m-j+l) / l; the adjusted p is the running maximum over j, and at
    least the raw p. The loop is over j (m - 2 steps), each step vectorised: O(m^2).
    """
    m = p.size
    i = np.arange(1, m + 1)
    pa = np.full(m, np.min(m * p / i))
    q = pa.copy()
    for j in range(m - 1, 1, -1):
        n_head = m - j + 1
        q1 = np.min(j * p[n_head:] / np.arange(2, j + 1))
        q[:n_head] = np.minimum(j * p[:n_head], q1)
        q[n_head:] = q[n_head - 1]
        pa = np.maximum(pa, q)
    return np.maximum(pa, p)


def adjust(pvalues: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values (same order as given). NaN entries are left out of the family and stay NaN."""
    if method not in METHODS:
        raise ValueError(f"unknown correction {method!r}; known: {', '.join(METHODS)}")
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    if method == "none":
        adj = q.copy()
    elif method == "bonferroni":
        adj = np.minimum(1.0, q * m)
    else:
        order = np.argsort(q, kind="stable")
        sorted_p = q[order]
        i = np.arange(1, m + 1)
        if method == "hommel" and m == 2:
            method = "hochberg"  # R's p.adjust: identical for two hypotheses
        if method == "hommel":
            adj_sorted = np.minimum(1.0, _hommel_sorted(sorted_p))
        elif method == "holm":
            adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - i + 1) * sorted_p))
        elif method == "hochberg":
            adj_sorted = np.minimum(1.0, np.minimum.accumulate(((m - i + 1) * sorted_p)[::-1])[::-1])
        else:
            c = np.sum(1.0 / i) if method == "fdr_by" else 1.0
            adj_sorted = np.minimum(1.0, np.minimum.accumulate((c * m / i * sorted_p)[::-1])[::-1])
        adj = np.empty(m)
        adj[order] = adj_sorted
    out[ok] = adj
    return out
