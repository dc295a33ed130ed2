"""Multiple-comparison corrections of a family of p-values.

Definitions as in R's ``p.adjust`` (Holm 1979; Hochberg 1988; Benjamini & Hochberg 1995;
Benjamini & Yekutieli 2001); tests compare against ``p.adjust`` output.
"""

from __future__ import annotations

import numpy as np

METHODS = ("none", "bonferroni", "holm", "hochberg", "fdr_bh", "fdr_by")


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
        if method == "holm":
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
