"""Replicability across corpora: the partial-conjunction procedure of Dror et al. (2017).

"Replicability Analysis for Natural Language Processing: Testing Significance with Multiple Datasets"
(TACL 5, 471-486), after Benjamini and Heller (2008). For one pair (A, B) and N corpora with one-sided
p-values p_1..p_N of "A better than B", the partial-conjunction null H^{u/N} is "A is better on fewer than
u corpora". Its p-value, with the p-values sorted ascending p_(1) <= ... <= p_(N):

* Bonferroni: p^{u/N} = min(1, (N - u + 1) p_(u));
* Fisher: p^{u/N} = P(chi2 with 2(N - u + 1) df >= -2 sum_{i=u..N} ln p_(i)).

Rejecting H^{u/N} implies rejecting H^{v/N} for v < u, so the p-values are made non-decreasing in u
(a running maximum, as the authors' code ``find_k_estimator`` does), and the estimate of the number of corpora
on which A is better is k_hat = #{u : p^{u/N} <= alpha} ("A beats B on at least k_hat of N corpora", the
family-wise error of the claim held at alpha). Vectorised over pairs (rows).

deepsig 1.2.8's ``bonferroni_correction`` computes the same p^{u/N} but returns them gathered by the sort
order instead of scattered back (``out = pc[order]`` where ``out[order] = pc`` is meant): for unsorted input
its values are at the wrong positions (tests/stats/test_replicability.py shows it). :func:`at_inputs` gives
each corpus the value of its own rank.
"""

from __future__ import annotations

import numpy as np

from sigreport.stats.methods.replicability import NAMES as METHODS
from sigreport.stats.methods.replicability import combination
from sigreport.stats.result import rejects


def partial_conjunction(pvalues: np.ndarray, method: str) -> np.ndarray:
    """p^{u/N} for u = 1..N (columns) of each row of ``pvalues`` (pairs x corpora, one-sided p in [0, 1]),
    made non-decreasing in u. NaN in a row: the row is NaN (a corpus without a p-value decides nothing)."""
    combination(method)  # an unknown name raises, naming the known ones
    p = np.atleast_2d(np.asarray(pvalues, dtype=np.float64))
    n = p.shape[1]
    asc = np.sort(p, axis=1)  # NaN sort last
    u = np.arange(1, n + 1)
    if method == METHODS[0]:  # bonferroni
        pc = np.minimum(1.0, (n - u + 1) * asc)
    else:
        from scipy import stats as sps

        with np.errstate(divide="ignore"):
            logs = -2.0 * np.log(asc)
        tail = np.cumsum(logs[:, ::-1], axis=1)[:, ::-1]  # sum over i = u..N of -2 ln p_(i)
        pc = sps.chi2.sf(tail, 2 * (n - u + 1))
    pc = np.maximum.accumulate(pc, axis=1)
    pc[np.isnan(p).any(axis=1)] = np.nan
    return pc


def k_estimate(pc: np.ndarray, alpha: float) -> np.ndarray:
    """k_hat per row: how many of the (non-decreasing) p^{u/N} are <= alpha; -1 for a row without values."""
    pc = np.atleast_2d(pc)
    k = rejects(pc, alpha).sum(axis=1)
    return np.where(np.isnan(pc).any(axis=1), -1, k)


def at_inputs(pvalues: np.ndarray, pc: np.ndarray) -> np.ndarray:
    """Each corpus's partial-conjunction p-value: the p^{u/N} of its rank u among the row's p-values (ties by
    position), in the input order (what deepsig 1.2.8 means to return)."""
    p = np.atleast_2d(np.asarray(pvalues, dtype=np.float64))
    order = np.argsort(p, axis=1, kind="stable")
    out = np.empty_like(pc)
    np.put_along_axis(out, order, pc, axis=1)
    return out


def one_sided_from_two_sided(pvalue: np.ndarray, estimate: np.ndarray, a_better_sign: float) -> np.ndarray:
    """The one-sided p of "a better than b" from a symmetric test's two-sided p and its estimate of a - b:
    p/2 when the estimate points the better way (``a_better_sign``: +1 higher is better, -1 lower), else
    1 - p/2 (exact for the t test, whose null distribution is symmetric)."""
    p = np.asarray(pvalue, dtype=np.float64)
    s = np.sign(np.asarray(estimate, dtype=np.float64)) * a_better_sign
    return np.where(s > 0, p / 2, np.where(s < 0, 1 - p / 2, 0.5 + 0 * p))
